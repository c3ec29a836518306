/*
 * ctl_args.c - heliodctl's command language: strict number parsing, global
 * options, per-command options turned into wire messages (validated with the
 * same hl_validate_* the daemon uses), body encoding, and batch line
 * splitting. No socket I/O, so the unit tests exercise it without a daemon.
 * The voice-management commands (cue, category, cues, emitter) are parsed in
 * ctl_args_vm.c with the option helpers this file shares through
 * ctl_args_int.h.
 */
#include "ctl_args.h"
#include "ctl_args_int.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- numbers ------------------------------------------------------------ */

int ctl_parse_float(const char *s, float *out) {
    if (!s || !*s) return -1;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (*end || end == s || errno == ERANGE || !isfinite(v) || fabs(v) > (double)3.0e38f) return -1;
    *out = (float)v;
    return 0;
}

int ctl_parse_int(const char *s, long min, long max, long *out) {
    if (!s || !*s) return -1;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (*end || end == s || errno == ERANGE || v < min || v > max) return -1;
    *out = v;
    return 0;
}

int ctl_parse_u64(const char *s, uint64_t *out) {
    if (!s || *s < '0' || *s > '9') return -1;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end || errno == ERANGE) return -1;
    *out = (uint64_t)v;
    return 0;
}

int ctl_parse_vec3(const char *s, float out[3]) {
    char buf[256];
    if (!s || strlen(s) >= sizeof buf) return -1;
    memcpy(buf, s, strlen(s) + 1);
    char *p = buf;
    for (int i = 0; i < 3; i++) {
        char *comma = strchr(p, ',');
        if (i < 2) {
            if (!comma) return -1;
            *comma = '\0';
        } else if (comma) {
            return -1;
        }
        if (ctl_parse_float(p, &out[i]) < 0) return -1;
        p = comma ? comma + 1 : p;
    }
    return 0;
}

/* ---- usage -------------------------------------------------------------- */

typedef struct {
    const char *name;
    ctl_kind_t kind;
    uint16_t op;
    const char *usage;
} cmd_desc_t;

static const cmd_desc_t cmds[] = {
    {"status", CTL_STATUS, HL_OP_STATS,
     "status\n  Server version, rate, period, voices and key statistics.\n"},
    {"devices", CTL_DEVICES, HL_OP_DEVICES, "devices\n  Audio output devices.\n"},
    {"device", CTL_DEVICE, HL_OP_DEVICE,
     "device NAME\n  Switch the output device while everything plays on (a few ms of fade).\n"
     "  NAME as --device takes it: a device name or a substring of one (see\n"
     "  `devices`), \"null\" for the null driver, \"default\" for the default output.\n"
     "  Prints the driver, device, rate and period now in use. A device that\n"
     "  cannot be opened (ENODEV, EINVAL, EIO) changes nothing: the current one plays on.\n"},
    {"load", CTL_LOAD, HL_OP_LOAD,
     "load NAME FILE [--stream] [--shared|--private] [--pin]\n"
     "  Decode FILE into the sound NAME ([A-Za-z0-9_.-], 1..63).\n"
     "  FILE - sends the file from stdin over the socket (a daemon that cannot\n"
     "  read your files: sandboxed or remote; up to 256 MiB, not streamed), as a\n"
     "  sealed memfd's descriptor, or in chunks if the daemon cannot take one\n"
     "  --stream   stream from disk instead of preloading\n"
     "  --shared   every client sees it (the default here: heliodctl's connection\n"
     "             ends with the command; only its loader or a control client\n"
     "             such as heliodctl unloads it)\n"
     "  --private  this connection's own, gone when it closes (use in batch)\n"
     "  --pin      never evicted by the sample-memory budget (--max-sample-mb): when\n"
     "             a load needs room, sounds no voice plays are evicted least\n"
     "             recently played first, pinned ones never\n"},
    {"unload", CTL_UNLOAD, HL_OP_UNLOAD, "unload NAME\n  Free a loaded sound.\n"},
    {"sounds", CTL_SOUNDS, HL_OP_SOUNDS, "sounds\n  Loaded sounds.\n"},
    {"play", CTL_PLAY, HL_OP_PLAY,
     "play NAME [options]\n  Play a cue or a sound; prints the voice handle.\n"
     "  A cue brings its own settings; --priority, --bus, --fade-in, --pan and the\n"
     "  distance options given here replace the cue's, --gain adds to its gain and\n"
     "  --pitch multiplies its pitch.\n"
     "  --gain DB          gain in dB (<= +24, default 0)\n"
     "  --pan P            stereo pan in [-1, 1] (default 0)\n"
     "  --pos X,Y,Z        3D position in metres (implies 3D)\n"
     "  --pitch R          playback rate in [0.25, 4] (default 1)\n"
     "  --loop             loop until stopped (or --loop-count more times)\n"
     "  --loop-start F     loop region start, frames at the file's rate (default 0)\n"
     "  --loop-end F       loop region end, frames at the file's rate (default: end)\n"
     "  --loop-count N     loop N extra times, then play on to the end (implies --loop)\n"
     "  --xfade MS         crossfade at the loop end (default 0: sample-exact)\n"
     "  --interp I         linear, cubic or sinc (band-limited, best) interpolation\n"
     "                     (default: the cue's, else the daemon's --interp)\n"
     "  --priority N       [-1000, 1000] (default 0)\n"
     "  --fade-in MS       fade-in length (default: server's anti-click fade)\n"
     "  --bus NAME         sfx, music, dialog, ui or a bus you made (default sfx)\n"
     "  --min-dist M       distance where attenuation starts (default 1)\n"
     "  --max-dist M       distance where it ends (default 100)\n"
     "  --rolloff R        rolloff factor >= 0 (default 1)\n"
     "  --model M          linear, inverse or exponential (default inverse)\n"
     "  --min-distance M, --max-distance M   same as --min-dist, --max-dist\n"
     "  --vel X,Y,Z        source velocity in m/s, for Doppler\n"
     "  --emitter ID       follow emitter ID (see `emitter`; implies 3D)\n"
     "  --at +MS|FRAME     start on that engine frame exactly (also --at-frame,\n"
     "                     --quantize, --quantize-ref; stop, set, bus and listener\n"
     "                     take them too: see `clock --help`)\n" CTL_POST_USAGE
     "  --wait             wait until the voice ends (it stops if heliodctl dies);\n"
     "                     without it the voice is detached and outlives heliodctl\n"},
    {"stop", CTL_STOP, HL_OP_STOP,
     "stop VOICE [--fade MS] [--curve linear|equal-power|log]\nstop --all [--fade MS]\n"
     "  Stop one voice, or every voice of every client.\n"
     "  --curve C  the fade's shape (default: the voice's cue's, linear for a sound)\n"},
    {"set", CTL_SET, HL_OP_SET,
     "set VOICE [--gain DB] [--pan P] [--pos X,Y,Z] [--vel X,Y,Z] [--pitch R]\n"
     "          [--ramp MS] [--seek S] [--pause | --resume] [--lp HZ] [--hp HZ]\n"
     "          [--occlusion X] [--obstruction X] [--send BUS:DB]...\n"
     "  Change a playing voice; changes ramp over --ramp MS.\n" CTL_POST_USAGE
     "  --vel V    source velocity X,Y,Z in m/s (Doppler)\n"
     "  --seek S   jump to S seconds into the sound, click-free\n"
     "  --pause    fade out and hold; --resume fades back in\n"},
    {"pause", CTL_PAUSE, HL_OP_SET,
     "pause VOICE [--ramp MS]\npause --all | --bus BUS | --category CATEGORY\n"
     "  Pause a voice, every voice (--all), or a bus's or category's voices.\n"
     "  --all, --bus and --category act on every client's voices and print how\n"
     "  many changed.\n"},
    {"resume", CTL_RESUME, HL_OP_SET,
     "resume VOICE [--ramp MS]\nresume --all | --bus BUS | --category CATEGORY\n"
     "  Resume a voice, all voices (--all), or a bus's or category's voices.\n"
     "  A resumed voice fades back in.\n"},
    {"listener", CTL_LISTENER, HL_OP_LISTENER,
     "listener [--pos X,Y,Z] [--forward X,Y,Z] [--up X,Y,Z] [--vel X,Y,Z]\n"
     "  Move or turn the listener.\n"},
    {"bus", CTL_BUS, HL_OP_BUS,
     "bus NAME [--gain DB] [--mute | --unmute] [--parent P] [--send T:DB] [--ramp MS]\n"
     "bus create NAME [--parent P] [--gain DB] [--mute]\nbus remove NAME\n"
     "  Change, create or remove a bus (\"master\" is the master bus).\n"
     "  --gain DB    the bus fader (<= +24), ramped over --ramp MS\n"
     "  --mute       mute it (ramped; the gain is kept); --unmute undoes it\n"
     "  --parent P   the bus it mixes into (default master); moves an existing bus\n"
     "  --send T:DB  also feed bus T at DB, before the fader (T:off removes it); up\n"
     "               to 4 sends per bus\n"
     "  create makes a new bus (at most 32 with sfx, music, dialog and ui);\n"
     "  remove takes out a bus you made, with its effects and ducking rules; it is\n"
     "  refused while voices play on it or send to it, or it has child buses.\n"},
    {"buses", CTL_BUSES, HL_OP_BUSES,
     "buses\n  The bus tree, each bus with its gain, mute, effects, voices and sends.\n"
     "  Each line: name, parent, gain, mute, effects, voices on it, voice sends into\n"
     "  it, ducking now, path gain (its faders and its ancestors') and its own sends.\n"},
    {"fx", CTL_FX, HL_OP_FX,
     "fx add BUS KIND [--at N] [PARAMS]\nfx set BUS INDEX KIND [PARAMS] [--ramp MS]\n"
     "fx remove BUS INDEX\nfx list [BUS]\n"
     "  Insert effects (EQ, compressor, reverb) on a bus or the master.\n"
     "  They run in chain order (INDEX from 0, see fx list), at most 8 per bus.\n"
     "  PARAMS by KIND (defaults in brackets):\n"
     "  eq      --type lowpass|highpass|lowshelf|highshelf|peak [peak]\n"
     "          --freq HZ [1000] --q Q [0.707] --gain DB [0] (shelves and peak)\n"
     "  comp    --threshold DB [-20] --ratio R [4] --knee DB [6] --attack MS [5]\n"
     "          --release MS [100] --makeup DB [0]\n"
     "  reverb  --preset room|hall|cave|outdoor [hall] --rt60 S --damping 0..1\n"
     "          --predelay MS --size 0.25..2 --wet 0..1 --dry 0..1\n"
     "          (presets pass the dry signal: use --dry 0 on a bus fed by sends)\n"
     "  set changes only the PARAMS given (a --preset reloads the whole preset);\n"
     "  eq changes glide over --ramp MS.\n"},
    {"duck", CTL_DUCK, HL_OP_DUCK,
     "duck BUS --by SIDE [--depth DB] [--threshold DB | --voices] [--attack MS]\n"
     "          [--hold MS] [--release MS]\nduck BUS --by SIDE --off\n"
     "  Duck one bus while another sounds (music under dialogue).\n"
     "  While SIDE is above --threshold (or, with --voices, has any voice), BUS goes\n"
     "  down --depth dB: attack, then hold once SIDE is quiet, then release.\n"
     "  Defaults: depth 9, threshold -40 dBFS, attack 80, hold 200, release 600 ms\n"
     "  (no audible pumping on speech over music). --off removes the rule.\n"},
    {"ducks", CTL_DUCKS, HL_OP_DUCKS, "ducks\n  The ducking rules, each with its gain now.\n"},
    {"reverb-zone", CTL_RZONE, HL_OP_RZONE,
     "reverb-zone NAME --pos X,Y,Z --radius R [--fade M] [--preset P | --bus BUS] [--feed BUS]\n"
     "reverb-zone remove NAME\n"
     "  A reverb zone: a sphere whose reverb is heard while the listener is in it.\n"
     "  Voices send to the feed bus (default \"reverb_zones\", made muted if missing:\n"
     "  play ... --send reverb_zones:-6); the feed sends to the zone's reverb bus at a level\n"
     "  of 1 inside --radius, falling to 0 at radius + --fade (default 0), gliding\n"
     "  over 100 ms; overlapping zones share the level (sum <= 1). --bus names an\n"
     "  existing reverb bus; without it a bus named NAME is made with a reverb of\n"
     "  --preset room|hall|cave|outdoor (default hall, dry 0). At most 4 zones per\n"
     "  feed are heard at once (the nearest); 64 zones in all.\n"},
    {"reverb-zones", CTL_RZONES, HL_OP_RZONES,
     "reverb-zones\n  The reverb zones, each with its weight and send level now.\n"},
    {"bank", CTL_BANK, HL_OP_BANK,
     "bank load FILE [--no-wait]\nbank unload NAME\n"
     "  Load a bank (a manifest of sounds) or unload one.\n"
     "  load waits until every sound is decoded, with a progress bar on a terminal\n"
     "  (plain lines otherwise); --no-wait returns at once. A play of one of its\n"
     "  sounds before then answers ELOADING. unload drops each sound as soon as no\n"
     "  voice plays it. Manifest (INI): name = NAME, cues = FILE, then per sound\n"
     "  [sound NAME] with path = FILE (relative to the manifest), stream = yes|no,\n"
     "  pin = yes|no (pinned sounds are never evicted by --max-sample-mb).\n"},
    {"banks", CTL_BANKS, HL_OP_BANKS,
     "banks\n  The banks: state, sounds loaded of listed, failures, bytes, first error.\n"},
    {"zone", CTL_ZONE, HL_OP_ZONE,
     "zone add NAME --bank FILE --pos X,Y,Z --radius R\nzone remove NAME\n"
     "  A world zone: a bank loaded while the listener is near it.\n"
     "  Its bank loads when the listener comes within R metres of it\n"
     "  (nearest first, within --zone-budget-kb of decoding per tick and\n"
     "  --zone-cap-mb resident) and unloads beyond 1.25 x R; a load overtaken by\n"
     "  the listener is cancelled.\n"},
    {"zones", CTL_ZONES, HL_OP_ZONES,
     "zones [--watch]\n  The world zones: state, bytes, distance; --watch follows the scheduler.\n"
     "  --watch prints every scheduler tick's report until stopped.\n"},
    {"voices", CTL_VOICES, HL_OP_VOICES,
     "voices\n  Playing voices with their cue, category, emitter and state.\n"
     "  Each line: handle, sound, owner, priority, state (playing, stopping, paused,\n"
     "  virtual or vpaused), gain, pan, position, pitch, bus, cue, category,\n"
     "  emitter, audibility in dB and playback position in seconds.\n"},
    {"stats", CTL_STATS, HL_OP_STATS,
     "stats [--reset]\nstats --cues [--json]\n"
     "  Every statistic; --reset restarts the callback-time figures.\n"
     "  --cues   per-cue and per-category counters instead (same as `cues`)\n"},
    {"cue", CTL_CUE, HL_OP_CUE,
     "cue NAME --sound S [--sound S2 ...] [options]\n"
     "  Define or redefine a cue: up to 16 sound variations and settings.\n"
     "  `play NAME` plays it. Defaults in brackets.\n"
     "  --sound S            a variation (repeat, 1..16)\n"
     "  --pick P             random, shuffle or sequence [random]\n"
     "  --gain DB            gain (<= +24) [0]\n"
     "  --gain-rand DB       each play adds uniform(-DB, +DB), [0, 48] [0]\n"
     "  --pitch RATE         [0.25, 4] [1]\n"
     "  --pitch-rand CENTS   each play detunes by up to +-CENTS, [0, 2400] [0]\n"
     "  --bus B              [sfx]\n"
     "  --category C         a defined category [none]\n"
     "  --priority N         [-1000, 1000] [0]\n"
     "  --pan P              2D pan [-1, 1] [0]\n"
     "  --3d                 positional (plays give --pos or --emitter)\n"
     "  --loop               loop until stopped\n"
     "  --interp I           linear, cubic or sinc [the daemon's --interp]\n"
     "  --min-distance M     [1]\n"
     "  --max-distance M     (<= 1e6) [100]\n"
     "  --rolloff R          >= 0 [1]\n"
     "  --model M            linear, inverse or exponential [inverse]\n"
     "  --fade-in MS         [server's anti-click fade]\n"
     "  --fade-out MS        eviction/release fade [the category's, else 50]\n"
     "  --lp HZ, --hp HZ, --occlusion X, --obstruction X, --send BUS:DB\n"
     "                       the cue's filters and sends, as for play [none]\n"
     "  --fade-curve C       linear, equal-power or log [linear]\n"
     "  --max-instances N    0 = unlimited, <= 65536 [0]\n"
     "  --overflow P         refuse, stop-oldest, fade-oldest, steal-lowest-priority,\n"
     "                       steal-quietest or steal-farthest [refuse]\n"
     "  --min-interval MS    refuse plays closer than MS to the last one [0]\n"
     "  --beyond B           past max distance: virtual, release or clamp [virtual]\n"
     "  --virtual V          back from virtual: resume, restart or kill [resume]\n"
     "  --doppler F          Doppler factor [0, 10], 0 = off [1]\n"},
    {"category", CTL_CATEGORY, HL_OP_CATEGORY,
     "category NAME [--max-instances N] [--overflow P] [--fade-out MS] [--fade-curve C]\n"
     "  Define (or redefine) a category: a voice limit shared by its cues.\n"
     "  --max-instances N   0 = unlimited, <= 65536 [0]\n"
     "  --overflow P        refuse, stop-oldest, fade-oldest, steal-lowest-priority,\n"
     "                      steal-quietest or steal-farthest [refuse]\n"
     "  --fade-out MS       eviction fade [50]\n"
     "  --fade-curve C      linear, equal-power or log [linear]\n"},
    {"cues", CTL_CUES, HL_OP_CUES,
     "cues [--json]\ncues load FILE\n"
     "  List cues and categories with their counters, or load a cue file.\n"
     "  The list shows key settings and plays, refusals by reason (interval,\n"
     "  distance, cue limit, category limit, no voice), evictions, steals,\n"
     "  virtualisations, active and virtual voices. `cues load` prints\n"
     "  \"N cues, M categories\"; a relative FILE is taken from the current directory.\n"},
    {"emitter", CTL_EMITTER, HL_OP_EMITTER,
     "emitter create ID --pos X,Y,Z [--vel X,Y,Z]\n"
     "emitter set ID [--pos X,Y,Z] [--vel X,Y,Z] [--ramp MS]\n"
     "emitter destroy ID [--fade MS]\n"
     "  Create, move or destroy an emitter that voices can follow.\n"
     "  Voices played with --emitter ID move with it. heliodctl's emitters outlive\n"
     "  it (detached). destroy fades their voices out (default: each cue's\n"
     "  fade-out) and prints how many it stopped.\n"},
    {"ping", CTL_PING, HL_OP_PING, "ping\n  Round trip time to the daemon in ms.\n"},
    {"watch", CTL_WATCH, HL_OP_SUBSCRIBE,
     "watch\n  Print voice, device, reload and error events until stopped.\n"
     "  started, ended (with the reason), virtual, real, device-lost, device-back,\n"
     "  reload (a sound's file changed: heliod --watch-assets), and the errors of\n"
     "  fire-and-forget requests, one a line.\n"},
    {"meter", CTL_METER, HL_OP_SUBSCRIBE,
     "meter [--rate HZ] [--count N] [--json]\n"
     "  Print the master and bus meters and the loudness, one line per event.\n"
     "  Each line: master, then every bus, as NAME peak/hold/rms in dBFS (the\n"
     "  louder channel; -144 is silence), then the EBU R128 loudness: M (400 ms),\n"
     "  S (3 s) and I (integrated, since start or `stats --reset`) in LUFS and\n"
     "  LRA in LU. --json prints one object per event with both channels.\n"
     "  --rate HZ    events per second, 1..100 [20]\n"
     "  --count N    stop after N events [until stopped]\n"},
    {"batch", CTL_BATCH, 0,
     "batch [FILE|-]\n  Run commands from FILE or stdin, one a line, pipelined.\n"
     "  A line reads as on the command line; '#' starts a comment. All are sent\n"
     "  before waiting, except that a load is waited for before the next line\n"
     "  (which may play it); prints one result line per command.\n"
     "  Time: a first word @FRAME schedules the line at that engine frame,\n"
     "  @+MS (or @+MSms, @+Ss) MS after the batch's first timed line. A line\n"
     "  '{' opens a bundle and '}' closes it: the play, stop, set, bus and\n"
     "  listener lines between apply together in one audio block (at most 64).\n"},
    {"clock", CTL_CLOCK, HL_OP_CLOCK,
     "clock\n  The engine clock: frame, its CLOCK_MONOTONIC time, rate, period, latency.\n"
     "  Engine frame F is due at about time_ns + (F - frame) * 1e9 / rate.\n"
     "  play, stop, set, bus and listener take (before or after their arguments):\n"
     "  --at +MS|+MSms|+Ss|FRAME   apply MS from now, or at engine FRAME, exactly\n"
     "  --at-frame FRAME           the same as --at FRAME\n"
     "                             (at most 24 h ahead; for bus, --gain and --mute\n"
     "                             only: create, remove, --parent, --send apply now)\n"
     "  --quantize FRAMES          move the time to the next multiple of FRAMES ...\n"
     "  --quantize-ref FRAME|VOICE ... counted from engine FRAME [0], or from the\n"
     "                             frame VOICE started on (e.g. the music's bar 1)\n"},
};
#define NCMDS (sizeof cmds / sizeof cmds[0])

static const char tool_head[] =
    "usage: heliodctl [--socket PATH] [--json] [--timeout MS] COMMAND [ARGS]\n"
    "       heliodctl --help | --version | COMMAND --help\n"
    "  --socket PATH   daemon socket (default $HELIOD_SOCKET, then\n"
    "                  $XDG_RUNTIME_DIR/heliod/heliod.sock)\n"
    "  --json          one JSON object per result (\"late_frames\":N when a\n"
    "                  scheduled request came late)\n"
    "  --timeout MS    give up waiting for the daemon after MS (default 5000)\n"
    "commands:\n";

/* The tool's help: the options, then every command of the table with the
 * first line of its own help, so the list can never miss one. Built once. */
static const char *tool_usage(void) {
    static char buf[4096];
    if (buf[0]) return buf;
    size_t len = (size_t)snprintf(buf, sizeof buf, "%s", tool_head);
    for (size_t i = 0; i < NCMDS && len < sizeof buf; i++) {
        /* the description is the first line indented by two spaces that is
         * not an option ("  --x"); synopsis continuation lines are deeper */
        const char *d = cmds[i].usage;
        while ((d = strchr(d, '\n')) != NULL) {
            d++;
            if (d[0] == ' ' && d[1] == ' ' && d[2] != ' ' && d[2] != '-') break;
        }
        d = d ? d + 2 : "";
        int dl = (int)strcspn(d, "\n");
        len += (size_t)snprintf(buf + len, sizeof buf - len, "  %-9s %.*s\n", cmds[i].name, dl, d);
    }
    return buf;
}

const char *ctl_usage(const char *cmd) {
    for (size_t i = 0; cmd && i < NCMDS; i++)
        if (strcmp(cmds[i].name, cmd) == 0) return cmds[i].usage;
    return tool_usage();
}

/* ---- helpers ------------------------------------------------------------ */

int ctl__fail(char *err, size_t errlen, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

/* Option matching "--name VALUE" and "--name=VALUE". Returns 1 when argv[*i]
 * is this option (with *val set, *i advanced past the value), 0 when it is not,
 * -1 when the value is missing. */
int ctl__opt_val(int argc, char **argv, int *i, const char *name, const char **val) {
    const char *a = argv[*i];
    size_t n = strlen(name);
    if (strncmp(a, name, n) != 0) return 0;
    if (a[n] == '=') {
        *val = a + n + 1;
        return 1;
    }
    if (a[n] != '\0') return 0;
    if (*i + 1 >= argc) return -1;
    *val = argv[++*i];
    return 1;
}

int ctl_parse_global(int argc, char **argv, ctl_opts_t *o, int *next, char *err, size_t errlen) {
    memset(o, 0, sizeof *o);
    o->timeout_ms = CTL_DEFAULT_TIMEOUT_MS;
    int i = 1;
    for (; i < argc; i++) {
        const char *a = argv[i];
        const char *v;
        int r;
        if (a[0] != '-') break;
        if (strcmp(a, "--json") == 0) {
            o->json = 1;
        } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            o->help = 1;
        } else if (strcmp(a, "--version") == 0) {
            o->version = 1;
        } else if ((r = ctl__opt_val(argc, argv, &i, "--socket", &v)) != 0) {
            if (r < 0 || !*v) return ctl__fail(err, errlen, "--socket needs a path");
            o->socket = v;
        } else if ((r = ctl__opt_val(argc, argv, &i, "--timeout", &v)) != 0) {
            long t;
            if (r < 0 || ctl_parse_int(v, 0, INT_MAX, &t) < 0)
                return ctl__fail(err, errlen, "--timeout needs a number of milliseconds >= 0");
            o->timeout_ms = (int)t;
        } else {
            return ctl__fail(err, errlen, "unknown option '%s' (try --help)", a);
        }
    }
    *next = i;
    return 0;
}

/* Parses the float value of option `name`. */
int ctl__num_opt(const char *name, const char *v, float *out, char *err, size_t errlen) {
    if (ctl_parse_float(v, out) < 0)
        return ctl__fail(err, errlen, "%s: '%s' is not a finite number", name, v);
    return 0;
}

int ctl__vec_opt(const char *name, const char *v, float out[3], char *err, size_t errlen) {
    if (ctl_parse_vec3(v, out) < 0)
        return ctl__fail(err, errlen, "%s: '%s' is not X,Y,Z (three finite numbers)", name, v);
    return 0;
}

/* An option taking a number (--gain -6, --gain=-6): 0 if argv[*i] is not
 * `name`, 1 when *out was set, -1 (message in err) when its value is missing
 * or not a finite number. */
int ctl__float_opt(int argc, char **argv, int *i, const char *name, float *out, char *err,
                   size_t errlen) {
    const char *v;
    int r = ctl__opt_val(argc, argv, i, name, &v);
    if (r < 0) return ctl__fail(err, errlen, "%s needs a value", name);
    if (r == 0) return 0;
    return ctl__num_opt(name, v, out, err, errlen) < 0 ? -1 : 1;
}

/* The same for an X,Y,Z option. */
int ctl__vec3_opt(int argc, char **argv, int *i, const char *name, float out[3], char *err,
                  size_t errlen) {
    const char *v;
    int r = ctl__opt_val(argc, argv, i, name, &v);
    if (r < 0) return ctl__fail(err, errlen, "%s needs a value", name);
    if (r == 0) return 0;
    return ctl__vec_opt(name, v, out, err, errlen) < 0 ? -1 : 1;
}

int ctl__name_arg(const char *what, const char *v, char *dst, size_t cap, char *err,
                  size_t errlen) {
    if (!v) return ctl__fail(err, errlen, "missing %s", what);
    if (!hl_name_valid(v))
        return ctl__fail(err, errlen, "invalid %s '%s' (1..63 of [A-Za-z0-9_.-])", what, v);
    snprintf(dst, cap, "%s", v);
    return 0;
}

/* An option taking one of the names of an hl_enum_kind_t (--overflow
 * steal-quietest): 0 if argv[*i] is not `name`, 1 when *out was set, -1 (with
 * the accepted names in err) when its value is missing or unknown. */
int ctl__enum_opt(int argc, char **argv, int *i, const char *name, hl_enum_kind_t kind,
                  uint8_t *out, char *err, size_t errlen) {
    const char *v;
    int r = ctl__opt_val(argc, argv, i, name, &v);
    if (r == 0) return 0;
    char names[160] = "";
    size_t len = 0;
    for (int k = 0; hl_enum_name(kind, k) && len < sizeof names; k++)
        len += (size_t)snprintf(names + len, sizeof names - len, "%s%s", k ? ", " : "",
                                hl_enum_name(kind, k));
    if (r < 0) return ctl__fail(err, errlen, "%s needs a value (%s)", name, names);
    int e = hl_enum_from(kind, v);
    if (e < 0) return ctl__fail(err, errlen, "%s: '%s' is not one of %s", name, v, names);
    *out = (uint8_t)e;
    return 1;
}

/* An integer option in [min, max]. */
int ctl__int_opt(int argc, char **argv, int *i, const char *name, long min, long max, long *out,
                 char *err, size_t errlen) {
    const char *v;
    int r = ctl__opt_val(argc, argv, i, name, &v);
    if (r == 0) return 0;
    if (r < 0 || ctl_parse_int(v, min, max, out) < 0)
        return ctl__fail(err, errlen, "%s needs an integer in [%ld, %ld]", name, min, max);
    return 1;
}

/* A name option (--bus sfx). */
int ctl__name_opt(int argc, char **argv, int *i, const char *name, char *dst, size_t cap, char *err,
                  size_t errlen) {
    const char *v;
    int r = ctl__opt_val(argc, argv, i, name, &v);
    if (r == 0) return 0;
    if (r < 0) return ctl__fail(err, errlen, "%s needs a value", name);
    if (!hl_name_valid(v))
        return ctl__fail(err, errlen, "%s: invalid name '%s' (1..63 of [A-Za-z0-9_.-])", name, v);
    snprintf(dst, cap, "%s", v);
    return 1;
}

/* ---- per-command parsers ------------------------------------------------ */

static int parse_play(int argc, char **argv, ctl_cmd_t *c, char *err, size_t errlen) {
    hl_play_t *m = &c->m.play;
    m->pitch = 1.0f;
    m->fade_in_ms = -1.0f;
    m->min_distance = 1.0f;
    m->max_distance = 100.0f;
    m->rolloff = 1.0f;
    m->model = HL_DIST_INVERSE;
    const char *sound = NULL;
    uint32_t post_mask = 0;
    int nsend = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v;
        int r;
        if (a[0] != '-' || a[1] != '-') {
            if (sound) return ctl__fail(err, errlen, "play: unexpected argument '%s'", a);
            sound = a;
            continue;
        }
        long n;
        if (strcmp(a, "--loop") == 0) {
            m->flags |= HL_PLAY_LOOP;
        } else if ((r = ctl__opt_val(argc, argv, &i, "--loop-start", &v)) != 0) {
            if (r < 0 || ctl_parse_int(v, 0, UINT32_MAX, &n) < 0)
                return ctl__fail(err, errlen, "--loop-start needs a frame number >= 0");
            m->loop_start = (uint32_t)n;
        } else if ((r = ctl__opt_val(argc, argv, &i, "--loop-end", &v)) != 0) {
            if (r < 0 || ctl_parse_int(v, 1, UINT32_MAX, &n) < 0)
                return ctl__fail(err, errlen, "--loop-end needs a frame number > 0");
            m->loop_end = (uint32_t)n;
        } else if ((r = ctl__opt_val(argc, argv, &i, "--loop-count", &v)) != 0) {
            if (r < 0 || ctl_parse_int(v, 1, UINT32_MAX, &n) < 0)
                return ctl__fail(err, errlen, "--loop-count needs a count >= 1");
            m->loop_count = (uint32_t)n;
            m->flags |= HL_PLAY_LOOP;
        } else if ((r = ctl__float_opt(argc, argv, &i, "--xfade", &m->loop_xfade_ms, err,
                                       errlen)) != 0) {
            if (r < 0) return -1;
        } else if ((r = ctl__opt_val(argc, argv, &i, "--interp", &v)) != 0) {
            if (r < 0) return ctl__fail(err, errlen, "--interp needs a value");
            uint32_t f = strcmp(v, "sinc") == 0     ? HL_PLAY_SINC
                         : strcmp(v, "cubic") == 0  ? HL_PLAY_CUBIC
                         : strcmp(v, "linear") == 0 ? HL_PLAY_LINEAR
                                                    : 0;
            if (!f) return ctl__fail(err, errlen, "--interp: '%s' is not linear, cubic or sinc", v);
            m->flags = (m->flags & ~(uint32_t)HL_PLAY_INTERP) | f;
        } else if (strcmp(a, "--wait") == 0) {
            c->wait = 1;
        } else if ((r = ctl__float_opt(argc, argv, &i, "--gain", &m->gain_db, err, errlen)) != 0) {
            if (r < 0) return -1;
        } else if ((r = ctl__float_opt(argc, argv, &i, "--pan", &m->pan, err, errlen)) != 0) {
            if (r < 0) return -1;
            m->over |= HL_OVER_PAN;
        } else if ((r = ctl__vec3_opt(argc, argv, &i, "--pos", m->pos, err, errlen)) != 0) {
            if (r < 0) return -1;
            m->flags |= HL_PLAY_3D;
        } else if ((r = ctl__float_opt(argc, argv, &i, "--pitch", &m->pitch, err, errlen)) != 0) {
            if (r < 0) return -1;
        } else if ((r = ctl__opt_val(argc, argv, &i, "--priority", &v)) != 0) {
            long p;
            if (r < 0 || ctl_parse_int(v, -HL_MAX_PRIORITY, HL_MAX_PRIORITY, &p) < 0)
                return ctl__fail(err, errlen, "--priority needs an integer in [-1000, 1000]");
            m->priority = (int32_t)p;
            m->over |= HL_OVER_PRIORITY;
        } else if ((r = ctl__float_opt(argc, argv, &i, "--fade-in", &m->fade_in_ms, err, errlen)) !=
                   0) {
            if (r < 0) return -1;
            m->over |= HL_OVER_FADE_IN;
        } else if ((r = ctl__opt_val(argc, argv, &i, "--bus", &v)) != 0) {
            if (r < 0 || ctl__name_arg("bus", v, m->bus, sizeof m->bus, err, errlen) < 0)
                return r < 0 ? ctl__fail(err, errlen, "--bus needs a value") : -1;
            m->over |= HL_OVER_BUS;
        } else if ((r = ctl__float_opt(argc, argv, &i, "--min-dist", &m->min_distance, err,
                                       errlen)) != 0 ||
                   (r = ctl__float_opt(argc, argv, &i, "--min-distance", &m->min_distance, err,
                                       errlen)) != 0) {
            if (r < 0) return -1;
            m->over |= HL_OVER_DISTANCE;
        } else if ((r = ctl__float_opt(argc, argv, &i, "--max-dist", &m->max_distance, err,
                                       errlen)) != 0 ||
                   (r = ctl__float_opt(argc, argv, &i, "--max-distance", &m->max_distance, err,
                                       errlen)) != 0) {
            if (r < 0) return -1;
            m->over |= HL_OVER_DISTANCE;
        } else if ((r = ctl__float_opt(argc, argv, &i, "--rolloff", &m->rolloff, err, errlen)) !=
                   0) {
            if (r < 0) return -1;
            m->over |= HL_OVER_DISTANCE;
        } else if ((r = ctl__enum_opt(argc, argv, &i, "--model", HL_ENUM_MODEL, &m->model, err,
                                      errlen)) != 0) {
            if (r < 0) return -1;
            m->over |= HL_OVER_DISTANCE;
        } else if ((r = ctl__vec3_opt(argc, argv, &i, "--vel", m->vel, err, errlen)) != 0) {
            if (r < 0) return -1;
        } else if ((r = ctl__opt_val(argc, argv, &i, "--emitter", &v)) != 0) {
            if (r < 0 ||
                ctl__name_arg("emitter", v, m->emitter, sizeof m->emitter, err, errlen) < 0)
                return r < 0 ? ctl__fail(err, errlen, "--emitter needs a value") : -1;
            m->flags |= HL_PLAY_3D;
        } else if ((r = ctl__post_opt(argc, argv, &i, &m->post, &post_mask, &nsend, err, errlen)) !=
                   0) {
            if (r < 0) return -1;
            if (post_mask & (HL_SET_LP | HL_SET_HP | HL_SET_OCCLUSION | HL_SET_OBSTRUCTION))
                m->over |= HL_OVER_FILTER;
            if (post_mask & HL_SET_SENDS) m->over |= HL_OVER_SENDS;
        } else {
            return ctl__fail(err, errlen, "play: unknown option '%s'", a);
        }
    }
    if (ctl__name_arg("sound name", sound, m->sound, sizeof m->sound, err, errlen) < 0) return -1;
    if (!c->wait) m->flags |= HL_PLAY_DETACHED;
    const char *why;
    if (hl_validate_play(m, &why) < 0) return ctl__fail(err, errlen, "play: %s", why);
    return 0;
}

static int parse_stop(int argc, char **argv, ctl_cmd_t *c, char *err, size_t errlen) {
    int all = 0, curve = -1;
    const char *voice = NULL;
    float fade = HL_DEFAULT_STOP_MS;
    for (int i = 1; i < argc; i++) {
        const char *v;
        int r;
        if (strcmp(argv[i], "--all") == 0) {
            all = 1;
        } else if ((r = ctl__opt_val(argc, argv, &i, "--fade", &v)) != 0) {
            if (r < 0) return ctl__fail(err, errlen, "--fade needs a value");
            if (ctl__num_opt("--fade", v, &fade, err, errlen) < 0) return -1;
        } else if ((r = ctl__opt_val(argc, argv, &i, "--curve", &v)) != 0) {
            if (r < 0) return ctl__fail(err, errlen, "--curve needs a value");
            curve = hl_enum_from(HL_ENUM_CURVE, v);
            if (curve < 0)
                return ctl__fail(err, errlen, "stop: --curve must be linear, equal-power or log");
        } else if (argv[i][0] == '-' && argv[i][1] == '-') {
            return ctl__fail(err, errlen, "stop: unknown option '%s'", argv[i]);
        } else if (voice) {
            return ctl__fail(err, errlen, "stop: unexpected argument '%s'", argv[i]);
        } else {
            voice = argv[i];
        }
    }
    const char *why;
    if (all) {
        if (voice) return ctl__fail(err, errlen, "stop: give a VOICE or --all, not both");
        if (curve >= 0) return ctl__fail(err, errlen, "stop: --curve is for one VOICE");
        c->kind = CTL_STOP_ALL;
        c->op = HL_OP_STOP_ALL;
        c->m.stop_all.fade_ms = fade;
        c->m.stop_all.scope = HL_STOP_ALL_EVERYONE;
        if (hl_validate_stop_all(&c->m.stop_all, &why) < 0)
            return ctl__fail(err, errlen, "stop: %s", why);
        return 0;
    }
    if (!voice) return ctl__fail(err, errlen, "stop: missing VOICE (or --all)");
    if (ctl_parse_u64(voice, &c->m.stop.voice) < 0 || c->m.stop.voice == 0)
        return ctl__fail(err, errlen, "stop: '%s' is not a voice handle", voice);
    c->m.stop.fade_ms = fade;
    c->m.stop.curve = curve < 0 ? 0 : HL_STOP_CURVE(curve);
    if (hl_validate_stop(&c->m.stop, &why) < 0) return ctl__fail(err, errlen, "stop: %s", why);
    return 0;
}

static int parse_set(int argc, char **argv, ctl_cmd_t *c, char *err, size_t errlen) {
    hl_set_t *m = &c->m.set;
    const char *voice = NULL;
    int nsend = 0;
    for (int i = 1; i < argc; i++) {
        const char *v;
        int r;
        if ((r = ctl__float_opt(argc, argv, &i, "--gain", &m->gain_db, err, errlen)) != 0) {
            if (r < 0) return -1;
            m->mask |= HL_SET_GAIN;
        } else if ((r = ctl__float_opt(argc, argv, &i, "--pan", &m->pan, err, errlen)) != 0) {
            if (r < 0) return -1;
            m->mask |= HL_SET_PAN;
        } else if ((r = ctl__vec3_opt(argc, argv, &i, "--pos", m->pos, err, errlen)) != 0) {
            if (r < 0) return -1;
            m->mask |= HL_SET_POS;
        } else if ((r = ctl__vec3_opt(argc, argv, &i, "--vel", m->vel, err, errlen)) != 0) {
            if (r < 0) return -1;
            m->mask |= HL_SET_VEL;
        } else if ((r = ctl__float_opt(argc, argv, &i, "--pitch", &m->pitch, err, errlen)) != 0) {
            if (r < 0) return -1;
            m->mask |= HL_SET_PITCH;
        } else if ((r = ctl__float_opt(argc, argv, &i, "--ramp", &m->ramp_ms, err, errlen)) != 0) {
            if (r < 0) return -1;
        } else if ((r = ctl__opt_val(argc, argv, &i, "--seek", &v)) != 0) {
            float sk = 0.0f;
            if (r < 0 || ctl__num_opt("--seek", v, &sk, err, errlen) < 0)
                return r < 0 ? ctl__fail(err, errlen, "--seek needs a value") : -1;
            m->seek_s = sk;
            m->mask |= HL_SET_SEEK;
        } else if (strcmp(argv[i], "--pause") == 0) {
            m->mask |= HL_SET_PAUSE;
        } else if (strcmp(argv[i], "--resume") == 0) {
            m->mask |= HL_SET_RESUME;
        } else if ((r = ctl__post_opt(argc, argv, &i, &m->post, &m->mask, &nsend, err, errlen)) !=
                   0) {
            if (r < 0) return -1;
        } else if (argv[i][0] == '-' && argv[i][1] == '-') {
            return ctl__fail(err, errlen, "set: unknown option '%s'", argv[i]);
        } else if (voice) {
            return ctl__fail(err, errlen, "set: unexpected argument '%s'", argv[i]);
        } else {
            voice = argv[i];
        }
    }
    if (!voice) return ctl__fail(err, errlen, "set: missing VOICE");
    if (ctl_parse_u64(voice, &m->voice) < 0 || m->voice == 0)
        return ctl__fail(err, errlen, "set: '%s' is not a voice handle", voice);
    if (!m->mask)
        return ctl__fail(
            err, errlen,
            "set: nothing to set (--gain, --pan, --pos, --vel, --pitch, --seek, --pause or "
            "--resume)");
    const char *why;
    if (hl_validate_set(m, &why) < 0) return ctl__fail(err, errlen, "set: %s", why);
    return 0;
}

static int parse_listener(int argc, char **argv, ctl_cmd_t *c, char *err, size_t errlen) {
    hl_listener_t *m = &c->m.listener;
    static const struct {
        const char *opt;
        uint32_t bit;
    } vo[] = {{"--pos", HL_LIS_POS},
              {"--forward", HL_LIS_FWD},
              {"--up", HL_LIS_UP},
              {"--vel", HL_LIS_VEL}};
    float *dst[] = {m->pos, m->fwd, m->up, m->vel};
    for (int i = 1; i < argc; i++) {
        int matched = 0;
        for (int k = 0; k < 4 && !matched; k++) {
            const char *v;
            int r = ctl__opt_val(argc, argv, &i, vo[k].opt, &v);
            if (r == 0) continue;
            if (r < 0) return ctl__fail(err, errlen, "%s needs a value", vo[k].opt);
            if (ctl__vec_opt(vo[k].opt, v, dst[k], err, errlen) < 0) return -1;
            m->mask |= vo[k].bit;
            matched = 1;
        }
        if (!matched) return ctl__fail(err, errlen, "listener: unknown argument '%s'", argv[i]);
    }
    if (!m->mask)
        return ctl__fail(err, errlen, "listener: nothing to set (--pos, --forward, --up or --vel)");
    const char *why;
    if (hl_validate_listener(m, &why) < 0) return ctl__fail(err, errlen, "listener: %s", why);
    return 0;
}

static int parse_load(int argc, char **argv, ctl_cmd_t *c, char *err, size_t errlen) {
    hl_load_t *m = &c->m.load;
    const char *pos[2] = {NULL, NULL};
    int npos = 0, priv = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--stream") == 0) {
            m->flags |= HL_LOAD_STREAM;
        } else if (strcmp(argv[i], "--shared") == 0) {
            priv = 0;
        } else if (strcmp(argv[i], "--private") == 0) {
            priv = 1;
        } else if (strcmp(argv[i], "--pin") == 0) {
            m->flags |= HL_LOAD_PIN;
        } else if (argv[i][0] == '-' && argv[i][1] == '-') {
            return ctl__fail(err, errlen, "load: unknown option '%s'", argv[i]);
        } else if (npos == 2) {
            return ctl__fail(err, errlen, "load: unexpected argument '%s'", argv[i]);
        } else {
            pos[npos++] = argv[i];
        }
    }
    if (npos < 2) return ctl__fail(err, errlen, "load: needs NAME FILE");
    if (!priv) m->flags |= HL_LOAD_SHARED;
    if (ctl__name_arg("sound name", pos[0], m->name, sizeof m->name, err, errlen) < 0) return -1;
    const char *path = pos[1];
    if (strcmp(path, "-") == 0) { /* the file's bytes from stdin, uploaded over the socket */
        if (m->flags & HL_LOAD_STREAM)
            return ctl__fail(err, errlen, "load: an upload (FILE -) is preloaded, not streamed");
        c->file = "-";
        return 0;
    }
    char *abs = path[0] != '/' ? realpath(path, NULL) : NULL;
    if (abs) path = abs;
    size_t n = strlen(path);
    if (n == 0 || n > HL_MAX_PATH) {
        free(abs);
        return ctl__fail(err, errlen, "load: FILE path empty or longer than %d bytes", HL_MAX_PATH);
    }
    memcpy(m->path, path, n + 1);
    free(abs);
    return 0;
}

/* pause/resume VOICE [--ramp MS] -> SET; pause/resume --all -> PAUSE (everyone). */
static int parse_pause(int argc, char **argv, ctl_cmd_t *c, char *err, size_t errlen) {
    int all = 0, pause = c->kind == CTL_PAUSE;
    const char *voice = NULL;
    float ramp = 0;
    uint8_t scope = HL_PAUSE_EVERYONE;
    char group[HL_MAX_NAME + 1] = "";
    for (int i = 1; i < argc; i++) {
        int r;
        if (strcmp(argv[i], "--all") == 0) {
            all++;
        } else if ((r = ctl__name_opt(argc, argv, &i, "--bus", group, sizeof group, err, errlen)) !=
                   0) {
            if (r < 0) return -1;
            all++;
            scope = HL_PAUSE_BUS;
        } else if ((r = ctl__name_opt(argc, argv, &i, "--category", group, sizeof group, err,
                                      errlen)) != 0) {
            if (r < 0) return -1;
            all++;
            scope = HL_PAUSE_CATEGORY;
        } else if ((r = ctl__float_opt(argc, argv, &i, "--ramp", &ramp, err, errlen)) != 0) {
            if (r < 0) return -1;
        } else if (argv[i][0] == '-' && argv[i][1] == '-') {
            return ctl__fail(err, errlen, "%s: unknown option '%s'", argv[0], argv[i]);
        } else if (voice) {
            return ctl__fail(err, errlen, "%s: unexpected argument '%s'", argv[0], argv[i]);
        } else {
            voice = argv[i];
        }
    }
    if (all) {
        if (voice || all > 1)
            return ctl__fail(err, errlen, "%s: give one of VOICE, --all, --bus or --category",
                             argv[0]);
        c->kind = CTL_PAUSE_ALL;
        c->op = HL_OP_PAUSE;
        c->m.pause.pause = (uint8_t)pause;
        c->m.pause.scope = scope;
        memcpy(c->m.pause.group, group, sizeof group);
        const char *why;
        if (hl_validate_pause(&c->m.pause, &why) < 0)
            return ctl__fail(err, errlen, "%s: %s", argv[0], why);
        return 0;
    }
    if (!voice)
        return ctl__fail(err, errlen, "%s: missing VOICE (or --all, --bus, --category)", argv[0]);
    hl_set_t *m = &c->m.set;
    if (ctl_parse_u64(voice, &m->voice) < 0 || m->voice == 0)
        return ctl__fail(err, errlen, "%s: '%s' is not a voice handle", argv[0], voice);
    c->kind = CTL_SET;
    m->mask = pause ? HL_SET_PAUSE : HL_SET_RESUME;
    m->pitch = 1.0f;
    m->ramp_ms = ramp;
    const char *why;
    if (hl_validate_set(m, &why) < 0) return ctl__fail(err, errlen, "%s: %s", argv[0], why);
    return 0;
}

/* meter [--rate HZ] [--count N] [--json] */
static int parse_meter(int argc, char **argv, ctl_cmd_t *c, char *err, size_t errlen) {
    for (int i = 1; i < argc; i++) {
        int r;
        if (strcmp(argv[i], "--json") == 0) {
            c->json = 1;
            continue;
        }
        if ((r = ctl__float_opt(argc, argv, &i, "--rate", &c->m.meter.hz, err, errlen)) != 0) {
            if (r < 0) return -1;
            hl_subscribe_t s = {.mask = HL_SUB_METER, .meter_hz = c->m.meter.hz};
            if (hl_validate_subscribe(&s, NULL) != 0 || c->m.meter.hz == 0.0f)
                return ctl__fail(err, errlen, "meter: --rate must be 1..100 events per second");
            continue;
        }
        if ((r = ctl__int_opt(argc, argv, &i, "--count", 1, 1000000000L, &c->m.meter.count, err,
                              errlen)) != 0) {
            if (r < 0) return -1;
            continue;
        }
        return ctl__fail(err, errlen, "meter: unexpected argument '%s'", argv[i]);
    }
    return 0;
}

/* Commands that take no argument except maybe one flag. */
static int parse_plain(int argc, char **argv, ctl_cmd_t *c, char *err, size_t errlen) {
    for (int i = 1; i < argc; i++) {
        if (c->kind == CTL_STATS && strcmp(argv[i], "--cues") == 0) {
            c->kind = CTL_CUES;
            c->op = HL_OP_CUES;
            if (c->m.stats.flags)
                return ctl__fail(err, errlen, "stats: --reset does not apply to --cues");
            return ctl__parse_cues(argc, argv, c, err, errlen);
        }
        if (c->kind == CTL_STATS && strcmp(argv[i], "--reset") == 0)
            c->m.stats.flags |= HL_STATS_RESET;
        else if (c->kind == CTL_BATCH && !c->file &&
                 (argv[i][0] != '-' || !argv[i][1] || strcmp(argv[i], "-") == 0))
            c->file = argv[i];
        else
            return ctl__fail(err, errlen, "%s: unexpected argument '%s'", argv[0], argv[i]);
    }
    return 0;
}

/* ---- time ------------------------------------------------------------------ */

int ctl_parse_at(const char *s, ctl_at_t *at, char *err, size_t errlen) {
    if (s && s[0] == '+') {
        char num[64];
        size_t n = strlen(s + 1);
        double scale = 1.0;
        if (n > 2 && strcmp(s + 1 + n - 2, "ms") == 0) {
            n -= 2;
        } else if (n > 1 && s[n] == 's') {
            n -= 1;
            scale = 1000.0;
        }
        float v;
        if (n == 0 || n >= sizeof num) return ctl__fail(err, errlen, "bad time '%s'", s);
        memcpy(num, s + 1, n);
        num[n] = 0;
        if (ctl_parse_float(num, &v) < 0 || v < 0.0f || (double)v * scale > 86400000.0)
            return ctl__fail(err, errlen, "bad time '%s' (+MS, +MSms, +Ss or FRAME)", s);
        at->kind = CTL_AT_MS;
        at->ms = (double)v * scale;
        return 0;
    }
    uint64_t f;
    if (s && strcmp(s, "0") == 0) { /* frame 0: the start of a score, or "now" */
        at->kind = CTL_AT_NONE;
        return 0;
    }
    if (!s || ctl_parse_u64(s, &f) < 0 || f == 0)
        return ctl__fail(err, errlen, "bad time '%s' (+MS, +MSms, +Ss or FRAME)", s ? s : "");
    at->kind = CTL_AT_FRAME;
    at->frame = f;
    return 0;
}

uint64_t ctl_at_resolve(const ctl_at_t *at, uint64_t origin_frame, uint32_t rate) {
    uint64_t f = origin_frame;
    if (at->kind == CTL_AT_FRAME) f = at->frame;
    if (at->kind == CTL_AT_MS) f = origin_frame + (uint64_t)(at->ms * rate / 1000.0 + 0.5);
    if (at->quantize) {
        uint64_t q = at->quantize, ref = at->qref;
        if (f <= ref) return ref;
        f = ref + (f - ref + q - 1) / q * q;
    }
    return f;
}

/* Takes the time options out of argv (any position after the command word)
 * into c->at; the command's own parser sees the rest. */
static int take_time_opts(int *argc, char **argv, ctl_cmd_t *c, int with_at, char *err,
                          size_t errlen) {
    int out = 1;
    for (int i = 1; i < *argc; i++) {
        const char *o = argv[i], *v = i + 1 < *argc ? argv[i + 1] : NULL;
        if ((with_at && strcmp(o, "--at") == 0) || strcmp(o, "--at-frame") == 0) {
            if (!v) return ctl__fail(err, errlen, "%s: needs a value", o);
            if (strcmp(o, "--at-frame") == 0 && v[0] == '+')
                return ctl__fail(err, errlen, "--at-frame: needs an engine frame");
            if (ctl_parse_at(v, &c->at, err, errlen) < 0) return -1;
            i++;
        } else if (strcmp(o, "--quantize") == 0 || strcmp(o, "--quantize-ref") == 0) {
            uint64_t n;
            if (!v || ctl_parse_u64(v, &n) < 0 || (o[10] == 0 && n == 0))
                return ctl__fail(err, errlen, "%s: needs a frame count", o);
            if (o[10] == 0)
                c->at.quantize = n;
            else
                c->at.qref = n;
            i++;
        } else {
            argv[out++] = argv[i];
        }
    }
    *argc = out;
    return 0;
}

static int parse_command(int argc, char **argv, ctl_cmd_t *c, char *err, size_t errlen);

int ctl_parse_command(int argc, char **argv, ctl_cmd_t *c, char *err, size_t errlen) {
    memset(c, 0, sizeof *c);
    if (argc < 1 || !argv[0]) return ctl__fail(err, errlen, "missing command (try --help)");
    /* time options: the schedulable commands take them (other commands are
     * refused below, but for --at, which `fx add` has as its own option) */
    static const char *const timed[] = {"play",     "stop",  "set",   "bus",
                                        "listener", "pause", "resume"};
    int with_at = 0;
    for (size_t k = 0; k < sizeof timed / sizeof timed[0]; k++)
        with_at |= strcmp(argv[0], timed[k]) == 0;
    if (strcmp(argv[0], "batch") != 0 && take_time_opts(&argc, argv, c, with_at, err, errlen) < 0)
        return -1;
    ctl_at_t at = c->at;
    if (parse_command(argc, argv, c, err, errlen) < 0) return -1;
    c->at = at;
    if ((at.kind != CTL_AT_NONE || at.quantize) && !c->help && !hl_op_schedulable(c->op))
        return ctl__fail(err, errlen, "%s: cannot be scheduled (play, stop, set, bus, listener)",
                         argv[0]);
    return 0;
}

static int parse_command(int argc, char **argv, ctl_cmd_t *c, char *err, size_t errlen) {
    const cmd_desc_t *d = NULL;
    for (size_t i = 0; i < NCMDS; i++)
        if (strcmp(cmds[i].name, argv[0]) == 0) d = &cmds[i];
    if (!d) return ctl__fail(err, errlen, "unknown command '%s' (try --help)", argv[0]);
    c->kind = d->kind;
    c->op = d->op;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            c->help = 1;
            return 0;
        }
    }
    switch (c->kind) {
    case CTL_PLAY: return parse_play(argc, argv, c, err, errlen);
    case CTL_STOP: return parse_stop(argc, argv, c, err, errlen);
    case CTL_SET: return parse_set(argc, argv, c, err, errlen);
    case CTL_LISTENER: return parse_listener(argc, argv, c, err, errlen);
    case CTL_BUS: return ctl__parse_bus(argc, argv, c, err, errlen);
    case CTL_FX: return ctl__parse_fx(argc, argv, c, err, errlen);
    case CTL_DUCK: return ctl__parse_duck(argc, argv, c, err, errlen);
    case CTL_RZONE: return ctl__parse_rzone(argc, argv, c, err, errlen);
    case CTL_BANK: return ctl__parse_bank(argc, argv, c, err, errlen);
    case CTL_ZONE: return ctl__parse_zone(argc, argv, c, err, errlen);
    case CTL_ZONES: return ctl__parse_zones(argc, argv, c, err, errlen);
    case CTL_LOAD: return parse_load(argc, argv, c, err, errlen);
    case CTL_PAUSE:
    case CTL_RESUME: return parse_pause(argc, argv, c, err, errlen);
    case CTL_CUE: return ctl__parse_cue(argc, argv, c, err, errlen);
    case CTL_CATEGORY: return ctl__parse_category(argc, argv, c, err, errlen);
    case CTL_CUES: return ctl__parse_cues(argc, argv, c, err, errlen);
    case CTL_EMITTER: return ctl__parse_emitter(argc, argv, c, err, errlen);
    case CTL_DEVICE:
        if (argc != 2 || !argv[1][0])
            return ctl__fail(err, errlen, "device: needs exactly one NAME (or null, default)");
        if (strlen(argv[1]) > HL_MAX_DEVNAME)
            return ctl__fail(err, errlen, "device: NAME longer than %d bytes", HL_MAX_DEVNAME);
        snprintf(c->m.device.name, sizeof c->m.device.name, "%s", argv[1]);
        return 0;
    case CTL_METER: return parse_meter(argc, argv, c, err, errlen);
    case CTL_UNLOAD:
        if (argc != 2) return ctl__fail(err, errlen, "unload: needs exactly one NAME");
        return ctl__name_arg("sound name", argv[1], c->m.name.name, sizeof c->m.name.name, err,
                             errlen);
    default: return parse_plain(argc, argv, c, err, errlen);
    }
}

int ctl_encode(const ctl_cmd_t *c, uint8_t *buf, size_t cap) {
    hl_wbuf_t w;
    hl_wbuf_init(&w, buf, cap);
    switch (c->kind) {
    case CTL_LOAD: hl_put_load(&w, &c->m.load); break;
    case CTL_UNLOAD: hl_put_name(&w, &c->m.name); break;
    case CTL_PLAY: hl_put_play(&w, &c->m.play); break;
    case CTL_STOP: hl_put_stop(&w, &c->m.stop); break;
    case CTL_STOP_ALL: hl_put_stop_all(&w, &c->m.stop_all); break;
    case CTL_SET: hl_put_set(&w, &c->m.set); break;
    case CTL_PAUSE_ALL: hl_put_pause(&w, &c->m.pause); break;
    case CTL_LISTENER: hl_put_listener(&w, &c->m.listener); break;
    case CTL_BUS: hl_put_bus(&w, &c->m.bus); break;
    case CTL_CUE: hl_put_cue(&w, &c->m.cue); break;
    case CTL_CATEGORY: hl_put_category(&w, &c->m.category); break;
    case CTL_CUES_LOAD: hl_put_cues_load(&w, &c->m.cues_load); break;
    case CTL_EMITTER:
    case CTL_EMITTER_DESTROY: hl_put_emitter(&w, &c->m.emitter); break;
    case CTL_DEVICE: hl_put_device_req(&w, &c->m.device); break;
    case CTL_FX: hl_put_fx_req(&w, &c->m.fx); break;
    case CTL_FX_LIST: hl_put_name(&w, &c->m.name); break;
    case CTL_DUCK: hl_put_duck_rule(&w, &c->m.duck); break;
    case CTL_RZONE: hl_put_rzone(&w, &c->m.rzone); break;
    case CTL_BANK: hl_put_bank(&w, &c->m.bank); break;
    case CTL_ZONE: hl_put_zone(&w, &c->m.zone); break;
    case CTL_STATS:
    case CTL_STATUS: hl_put_stats_req(&w, &c->m.stats); break;
    case CTL_WATCH: {
        hl_subscribe_t s = {.mask = HL_SUB_MASK & ~HL_SUB_METER}; /* meters: `meter` */
        hl_put_subscribe(&w, &s);
        break;
    }
    case CTL_METER: {
        hl_subscribe_t s = {.mask = HL_SUB_METER, .meter_hz = c->m.meter.hz};
        hl_put_subscribe(&w, &s);
        break;
    }
    case CTL_CLOCK:
    case CTL_BUSES:
    case CTL_BANKS:
    case CTL_ZONES:
    case CTL_RZONES:
    case CTL_DUCKS:
    case CTL_CUES:
    case CTL_DEVICES:
    case CTL_SOUNDS:
    case CTL_VOICES:
    case CTL_PING: break;
    case CTL_PAUSE:
    case CTL_RESUME: /* parsed into CTL_SET or CTL_PAUSE_ALL */
    case CTL_BATCH: return HELIOD_EINVAL;
    }
    if (w.err) return w.err;
    return (int)w.len;
}

int ctl_split_line(char *line, char **argv, int max, char *err, size_t errlen) {
    int argc = 0;
    char *p = line, *out = line;
    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
            p++;
        if (!*p || *p == '#') break;
        if (argc == max) return ctl__fail(err, errlen, "too many words (max %d)", max);
        argv[argc++] = out;
        char quote = 0;
        while (*p) {
            char ch = *p;
            if (quote) {
                if (ch == quote) {
                    quote = 0;
                    p++;
                    continue;
                }
                if (ch == '\\' && quote == '"' && p[1]) {
                    *out++ = p[1];
                    p += 2;
                    continue;
                }
                *out++ = ch;
                p++;
                continue;
            }
            if (ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n') break;
            if (ch == '\'' || ch == '"') {
                quote = ch;
                p++;
                continue;
            }
            if (ch == '\\' && p[1]) {
                *out++ = p[1];
                p += 2;
                continue;
            }
            *out++ = ch;
            p++;
        }
        if (quote) return ctl__fail(err, errlen, "unterminated %c quote", quote);
        int at_end = (*p == '\0');
        if (!at_end) p++;
        *out++ = '\0';
        if (at_end) break;
    }
    return argc;
}
