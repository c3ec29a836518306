/*
 * ctl_args.c - the top of heliodctl's command language: the command table
 * (word, kind, opcode, usage), global options, the time options every
 * schedulable command takes, the dispatch of a command word to its area's
 * parser (ctl_args_int.h), and body encoding. The area parsers
 * (ctl_args_voice.c, _vm.c, _graph.c, _assets.c) and this file call down
 * into ctl_parse.c; nothing calls up. No socket I/O, so the unit tests
 * exercise it without a daemon.
 */
#include "ctl_args.h"
#include "ctl_args_int.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
     "load NAME FILE[@OFFSET+LENGTH] [--stream|--compressed] [--shared|--private] [--pin]\n"
     "  Decode FILE into the sound NAME ([A-Za-z0-9_.-], 1..63).\n"
     "  FILE - sends the file from stdin over the socket (a daemon that cannot\n"
     "  read your files: sandboxed or remote; up to 256 MiB, not streamed), as a\n"
     "  sealed memfd's descriptor, or in chunks if the daemon cannot take one\n"
     "  --stream   stream from disk instead of preloading\n"
     "  --compressed  keep the encoded file in memory, decode it while it plays\n"
     "  FILE@OFFSET+LENGTH  the sound is LENGTH bytes at byte OFFSET of FILE (a pack file;\n"
     "             +LENGTH left out: to the file's end)\n"
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
     "  --lfe L            LFE send, linear in [0, 4] (default 0: none; --layout 5.1, 7.1, 7.1.4)\n"
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
     "  --on beat|bar --of VOICE\n"
     "                     a stinger: start on the next beat or bar of music voice\n"
     "                     VOICE (a cue with a tempo map), on its exact frame\n"
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
     "          [--ramp MS] [--seek S] [--loops N|forever] [--pause | --resume]\n"
     "          [--lp HZ] [--hp HZ]\n"
     "          [--occlusion X] [--obstruction X] [--send BUS:DB]...\n"
     "  Change a playing voice; changes ramp over --ramp MS.\n" CTL_POST_USAGE
     "  --vel V    source velocity X,Y,Z in m/s (Doppler)\n"
     "  --lfe L    LFE send, linear in [0, 4] (0: none)\n"
     "  --loops N  loop passes left from now: forever, N more, or 0 to leave the\n"
     "             loop at the end of this pass and play on to the sound's end\n"
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
     "listener [--index N] [--pos X,Y,Z] [--forward X,Y,Z] [--up X,Y,Z] [--vel X,Y,Z]\n"
     "         [--weight W|nearest]\n"
     "listener --index N --off\n"
     "  Move or turn the listener. --index 1..3 (protocol 1.1) is a listener of\n"
     "  this client's own (split screen; another client's listeners are not\n"
     "  its to move), on from its first move (it starts where listener 0 is)\n"
     "  until --off; 0, the default, is the global one. Each 3D voice is heard\n"
     "  by the nearest listener: distance, pan, cone and Doppler are its.\n"
     "  --weight W (0..1, protocol 1.1): while any listener on has a weight, a\n"
     "  3D voice's gain is the sum over the listeners of W x its gain there\n"
     "  (pan, Doppler and the rest stay the nearest's); nearest drops it.\n"},
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
     "  changes glide over --ramp MS: eq; comp threshold, ratio, knee, makeup;\n"
     "  reverb rt60, damping, wet, dry (the others apply at once).\n"},
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
    {"snapshot", CTL_SNAPSHOT, HL_OP_SNAPSHOT,
     "snapshot start|stop NAME [--fade MS] [--intensity X] [--at +MS|FRAME]\n"
     "snapshot define NAME [--priority N] [--fade MS]\n"
     "snapshot set NAME BUS gain DB | mute on|off | fx INDEX PARAM VALUE\n"
     "snapshot remove NAME\nsnapshot show NAME [--json]\n"
     "  A mixer snapshot: a named set of bus faders, mutes and effect parameters\n"
     "  (EQ gain or frequency, reverb wet, filter cutoffs) blended over the mix.\n"
     "  start blends to it over --fade (default: its own) up to --intensity X\n"
     "  (0..1, default 1; start again to change it); stop blends back. Several\n"
     "  stack by --priority (higher overrides: each moves the value left by the\n"
     "  lower ones toward its own by its intensity). PARAM is the effect's p\n"
     "  index (fx list). At most 64 snapshots of 32 settings; needs protocol 1.1.\n"
     "  show prints one's priority, fade and settings as the [snapshot NAME]\n"
     "  section `cues load` reads back, its state as a comment; --json: an object.\n"},
    {"snapshots", CTL_SNAPSHOTS, HL_OP_SNAPSHOTS,
     "snapshots\n  The snapshots: priority, fade, settings, state and intensity now.\n"},
    {"cone", CTL_CONE, HL_OP_CONE,
     "cone VOICE|--emitter NAME|--cue NAME --dir X,Y,Z [--inner DEG] [--outer DEG]\n"
     "     [--outer-gain X] [--outer-lp HZ]\n"
     "cone VOICE|--emitter NAME|--cue NAME --off\n"
     "  A sound cone, as OpenAL 1.1 defines it: the source points along --dir; a\n"
     "  listener within the inner cone (full width, degrees, default 360) hears it\n"
     "  at full gain, beyond the outer cone (default 360) at --outer-gain (linear,\n"
     "  0..1, default 0), and in between the gain goes linearly with the angle.\n"
     "  --outer-lp HZ also low-passes it beyond the outer cone (0 = none, the\n"
     "  default), the cutoff moving between the cones with the gain.\n"
     "  On a voice now; on an emitter's voices now and later; on a cue's voices\n"
     "  started from now on (an emitter's cone wins). --off removes it. Needs\n"
     "  protocol 1.1.\n"},
    {"attenuation", CTL_ATTEN, HL_OP_ATTEN,
     "attenuation VOICE|--emitter NAME|--cue NAME [--kind gain|lowpass|send]\n"
     "            --points D:V[,D:V...]\n"
     "attenuation VOICE|--emitter NAME|--cue NAME [--kind gain|lowpass|send] --off\n"
     "  A custom distance curve of a 3D voice: up to 8 points of distance (m,\n"
     "  increasing) and a value. --kind gain (the default): the gain (dB,\n"
     "  -144..+24) instead of the distance model, linear in dB between points.\n"
     "  --kind lowpass: a low-pass cutoff (Hz, 10..96000), log-frequency between\n"
     "  points, joined with the voice's own and its cone's (the lower wins).\n"
     "  --kind send: a level (dB, -144..+24) multiplying each of its sends (its\n"
     "  reverb sends). End values beyond the points. On a voice now; on an\n"
     "  emitter's voices now and later (a voice given a curve of its own keeps\n"
     "  it; the emitter's wins over its cue's); on a cue's voices started from\n"
     "  now on. --off removes the curve (gain: back to the model). Needs\n"
     "  protocol 1.1.\n"},
    {"bank", CTL_BANK, HL_OP_BANK,
     "bank load FILE [--no-wait]\nbank unload NAME\n"
     "  Load a bank (a manifest of sounds) or unload one.\n"
     "  load waits until every sound is decoded, with a progress bar on a terminal\n"
     "  (plain lines otherwise); --no-wait returns at once. A play of one of its\n"
     "  sounds before then answers ELOADING. unload drops each sound as soon as no\n"
     "  voice plays it. Manifest (INI): name = NAME, cues = FILE, then per sound\n"
     "  [sound NAME] with path = FILE (relative to the manifest; FILE@OFFSET+LENGTH\n"
     "  for a sound inside a pack file), stream = yes|no, compressed = yes|no (kept\n"
     "  encoded in memory, decoded while it plays), pin = yes|no (pinned sounds are\n"
     "  never evicted by --max-sample-mb).\n"},
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
     "cue NAME --sound S [--sound S2 ...] [options]\ncue show NAME [--json]\n"
     "  Define or redefine a cue: up to 16 sound variations and settings.\n"
     "  show prints a cue's whole definition (settings, bindings, cone, curve) as\n"
     "  the [cue NAME] section `cues load` reads back; --json: one JSON object.\n"
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
     "cues [--json]\ncues load FILE\ncues save FILE\n"
     "  List cues and categories with their counters, or load a cue file.\n"
     "  The list shows key settings and plays, refusals by reason (interval,\n"
     "  distance, cue limit, category limit, no voice), evictions, steals,\n"
     "  virtualisations, active and virtual voices. `cues load` prints\n"
     "  \"N cues, M categories\"; a relative FILE is taken from the current directory.\n"
     "  `cues save` writes the parameter, category and cue definitions, with each\n"
     "  cue's bindings, cone, distance curves and tempo map, the music sections\n"
     "  and the mixer snapshots, as a sheet that `cues load` reads back to the\n"
     "  same definitions.\n"},
    {"emitter", CTL_EMITTER, HL_OP_EMITTER,
     "emitter create ID --pos X,Y,Z [--vel X,Y,Z]\n"
     "emitter set ID [--pos X,Y,Z] [--vel X,Y,Z] [--ramp MS]\n"
     "emitter destroy ID [--fade MS]\n"
     "  Create, move or destroy an emitter that voices can follow.\n"
     "  Voices played with --emitter ID move with it. heliodctl's emitters outlive\n"
     "  it (detached). destroy fades their voices out (default: each cue's\n"
     "  fade-out) and prints how many it stopped.\n"},
    {"param", CTL_PARAM, HL_OP_PARAM,
     "param NAME VALUE [--emitter ID | --voice VOICE]\n"
     "  Set a game parameter: its global value, or an emitter's or a voice's own\n"
     "  (a voice hears its own value, else its emitter's, else the global one).\n"
     "  The value moves toward VALUE at the parameter's seek speed; the voices of\n"
     "  cues bound to it follow (see bind). Takes --at like set.\n"},
    {"param-def", CTL_PARAM_DEF, HL_OP_PARAM_DEF,
     "param-def NAME MIN MAX DEFAULT [SEEK]\n"
     "  Define (or redefine) a game parameter: range, default, seek speed.\n"
     "  SEEK is in units per second [0: jumps]. In a cue sheet:\n"
     "  [parameter NAME] MIN MAX DEFAULT SEEK.\n"},
    {"params", CTL_PARAMS, HL_OP_PARAMS,
     "params\n  List the game parameters with their range, seek speed and global value.\n"},
    {"capture", CTL_CAPTURE, HL_OP_CAPTURE,
     "capture start FILE [--include-audio] | capture stop | capture show FILE [--json]\n"
     "  Capture the session into FILE (a control client's request): every request\n"
     "  that may change engine state, from every client, with its client, engine\n"
     "  frame and status, and the identity (path, size, mtime, hash) of every file a\n"
     "  load names; --include-audio: the files' bytes too. stop prints the requests\n"
     "  captured. show lists a capture file's records (frame, seconds, client,\n"
     "  command, status), --json one object a line; it needs no daemon.\n"},
    {"bind", CTL_BIND, HL_OP_BIND,
     "bind CUE PARAM PROPERTY [X:Y[:SHAPE] ...]\nbind CUE --clear\n"
     "bind BUS PARAM bus-gain|fx:INDEX:P [X:Y[:SHAPE] ...]\n"
     "bind SNAPSHOT PARAM snapshot [X:Y[:SHAPE] ...]\n"
     "  Bind a parameter through a curve to a property of a cue's voices.\n"
     "  1..16 points, x increasing, within the parameter's range. PROPERTY:\n"
     "  gain (dB), pitch (cents), lp, hp (Hz), occlusion (0..1), send[:N] (dB\n"
     "  added to send N), switch (the x are the boundaries between variations),\n"
     "  blend (every variation plays, crossfaded at equal power between the x).\n"
     "  SHAPE: the segment to the next point, linear, exp, log or scurve\n"
     "  [linear]. Gains and cents of several bindings add up. Voices started\n"
     "  after it follow it. bus-gain (dB; bindings on one bus add up) and\n"
     "  fx:INDEX:P (parameter P of effect INDEX on the bus, e.g. fx:0:2 an EQ's\n"
     "  gain, p4 a reverb's wet, p0 a compressor's threshold) bind a bus;\n"
     "  snapshot a mixer snapshot's intensity (y 0..1; started above 0).\n"},
    {"ping", CTL_PING, HL_OP_PING, "ping\n  Round trip time to the daemon in ms.\n"},
    {"watch", CTL_WATCH, HL_OP_SUBSCRIBE,
     "watch\n  Print voice, device, reload and error events until stopped.\n"
     "  started, ended (with the reason), virtual, real, device-lost, device-back,\n"
     "  reload (a sound's file changed: heliod --watch-assets), beat and bar (music\n"
     "  voices: VOICE FRAME BEAT BAR BEAT_IN_BAR BPM TIME_NS), and the errors of\n"
     "  fire-and-forget requests, one a line.\n"},
    {"meter", CTL_METER, HL_OP_SUBSCRIBE,
     "meter [--rate HZ] [--count N] [--json]\n"
     "  Print the master and bus meters and the loudness, one line per event.\n"
     "  Each line: master, then every bus, as NAME peak/hold/rms in dBFS (the\n"
     "  louder channel; -144 is silence), then the EBU R128 loudness: M (400 ms),\n"
     "  S (3 s) and I (integrated, since start or `stats --reset`) in LUFS and\n"
     "  LRA in LU. --json prints one object per event with every channel (a\n"
     "  surround layout's in its order: FL FR FC LFE BL BR SL SR, then 7.1.4's\n"
     "  TFL TFR TBL TBR).\n"
     "  --rate HZ    events per second, 1..100 [20]\n"
     "  --count N    stop after N events [until stopped]\n"},
    {"batch", CTL_BATCH, 0,
     "batch [FILE|-]\n  Run commands from FILE or stdin, one a line, pipelined.\n"
     "  A line reads as on the command line; '#' starts a comment. All are sent\n"
     "  before waiting, except that a load is waited for before the next line\n"
     "  (which may play it); prints one result line per command, at the end.\n"
     "  From a pipe or a terminal each line goes out as it arrives, and the\n"
     "  connection (its voices, its music) lives until the input ends.\n"
     "  Time: a first word @FRAME schedules the line at that engine frame,\n"
     "  @+MS (or @+MSms, @+Ss) MS after the batch's first timed line. A line\n"
     "  '{' opens a bundle and '}' closes it: the play, stop, set, bus and\n"
     "  listener lines between apply together in one audio block (at most 64).\n"},
    {"music", CTL_MUSIC, HL_OP_MUSIC,
     "music NAME --to STATE\n"
     "  A cue sheet's [music NAME] goes to STATE: the first request starts its\n"
     "  cue (and its layers) now; later ones follow the section's transition\n"
     "  table (when: now, beat, bar, bars:N on the playing track's beat map,\n"
     "  marker: its sound's next cue point, end: the end of its loop pass; how:\n"
     "  xfade, fadeout or segment:CUE played in between; tail: the old track\n"
     "  rings out its pass). A request made while a transition waits for its\n"
     "  frame replaces it. Prints the frame the new track (a segment: the\n"
     "  segment) starts on and its voice (0 while the transition waits).\n"
     "  Takes --at / --at-frame (protocol 1.1). The music belongs to the\n"
     "  connection, as a game's does: its tracks fade out when heliodctl exits.\n"
     "  To steer it from a shell, pipe the lines into one `heliodctl batch -`:\n"
     "  { echo 'music game --to calm'; sleep 20; echo 'music game --to fight';\n"
     "    sleep 20; } | heliodctl batch -\n"},
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
    static const char *const timed[] = {"play",  "stop",   "set",   "bus",  "listener",
                                        "pause", "resume", "param", "music"};
    int with_at = 0;
    for (size_t k = 0; k < sizeof timed / sizeof timed[0]; k++)
        with_at |= strcmp(argv[0], timed[k]) == 0;
    if (strcmp(argv[0], "batch") != 0 && take_time_opts(&argc, argv, c, with_at, err, errlen) < 0)
        return -1;
    ctl_at_t at = c->at;
    if (parse_command(argc, argv, c, err, errlen) < 0) return -1;
    c->at = at;
    if ((at.kind != CTL_AT_NONE || at.quantize) && !c->help && !hl_op_schedulable(c->op))
        return ctl__fail(err, errlen,
                         "%s: cannot be scheduled (play, stop, set, bus, listener, param, music)",
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
    case CTL_PLAY: return ctl__parse_play(argc, argv, c, err, errlen);
    case CTL_STOP: return ctl__parse_stop(argc, argv, c, err, errlen);
    case CTL_SET: return ctl__parse_set(argc, argv, c, err, errlen);
    case CTL_LISTENER: return ctl__parse_listener(argc, argv, c, err, errlen);
    case CTL_BUS: return ctl__parse_bus(argc, argv, c, err, errlen);
    case CTL_FX: return ctl__parse_fx(argc, argv, c, err, errlen);
    case CTL_DUCK: return ctl__parse_duck(argc, argv, c, err, errlen);
    case CTL_RZONE: return ctl__parse_rzone(argc, argv, c, err, errlen);
    case CTL_SNAPSHOT: return ctl__parse_snapshot(argc, argv, c, err, errlen);
    case CTL_CONE: return ctl__parse_cone(argc, argv, c, err, errlen);
    case CTL_ATTEN: return ctl__parse_atten(argc, argv, c, err, errlen);
    case CTL_BANK: return ctl__parse_bank(argc, argv, c, err, errlen);
    case CTL_ZONE: return ctl__parse_zone(argc, argv, c, err, errlen);
    case CTL_ZONES: return ctl__parse_zones(argc, argv, c, err, errlen);
    case CTL_LOAD: return ctl__parse_load(argc, argv, c, err, errlen);
    case CTL_PAUSE:
    case CTL_RESUME: return ctl__parse_pause(argc, argv, c, err, errlen);
    case CTL_CUE: return ctl__parse_cue(argc, argv, c, err, errlen);
    case CTL_CATEGORY: return ctl__parse_category(argc, argv, c, err, errlen);
    case CTL_CUES: return ctl__parse_cues(argc, argv, c, err, errlen);
    case CTL_EMITTER: return ctl__parse_emitter(argc, argv, c, err, errlen);
    case CTL_PARAM: return ctl__parse_param(argc, argv, c, err, errlen);
    case CTL_PARAM_DEF: return ctl__parse_param_def(argc, argv, c, err, errlen);
    case CTL_BIND: return ctl__parse_bind(argc, argv, c, err, errlen);
    case CTL_CAPTURE: {
        hl_capture_t *m = &c->m.capture;
        memset(m, 0, sizeof *m);
        if (argc == 2 && !strcmp(argv[1], "stop")) {
            m->action = HL_CAPTURE_STOP;
            return 0;
        }
        if (argc < 3 || strcmp(argv[1], "start") != 0 ||
            (argc == 4 && strcmp(argv[3], "--include-audio") != 0) || argc > 4)
            return ctl__fail(err, errlen,
                             "capture: start FILE [--include-audio] | stop | show FILE [--json]");
        m->action = HL_CAPTURE_START;
        m->flags = argc == 4 ? HL_CAPTURE_AUDIO : 0;
        char abs[HL_MAX_PATH + 1];
        if (argv[2][0] == '/')
            snprintf(abs, sizeof abs, "%s", argv[2]);
        else {
            char cwd[HL_MAX_PATH + 1];
            if (!getcwd(cwd, sizeof cwd))
                return ctl__fail(err, errlen, "capture: no working directory");
            if ((size_t)snprintf(abs, sizeof abs, "%s/%s", cwd, argv[2]) >= sizeof abs)
                return ctl__fail(err, errlen, "capture: FILE longer than %d bytes", HL_MAX_PATH);
        }
        if (strlen(abs) > HL_MAX_PATH)
            return ctl__fail(err, errlen, "capture: FILE longer than %d bytes", HL_MAX_PATH);
        snprintf(m->path, sizeof m->path, "%s", abs);
        return 0;
    }
    case CTL_DEVICE:
        if (argc != 2 || !argv[1][0])
            return ctl__fail(err, errlen, "device: needs exactly one NAME (or null, default)");
        if (strlen(argv[1]) > HL_MAX_DEVNAME)
            return ctl__fail(err, errlen, "device: NAME longer than %d bytes", HL_MAX_DEVNAME);
        snprintf(c->m.device.name, sizeof c->m.device.name, "%s", argv[1]);
        return 0;
    case CTL_METER: return parse_meter(argc, argv, c, err, errlen);
    case CTL_MUSIC:
        if (argc != 4 || strcmp(argv[2], "--to") != 0)
            return ctl__fail(err, errlen, "music: usage: music NAME --to STATE");
        if (ctl__name_arg("music name", argv[1], c->m.music.name, sizeof c->m.music.name, err,
                          errlen) < 0)
            return -1;
        return ctl__name_arg("state name", argv[3], c->m.music.to, sizeof c->m.music.to, err,
                             errlen);
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
    case CTL_PARAM: hl_put_param(&w, &c->m.param); break;
    case CTL_PARAM_DEF: hl_put_param_def(&w, &c->m.param_def); break;
    case CTL_BIND: hl_put_bind(&w, &c->m.bind); break;
    case CTL_CAPTURE: hl_put_capture(&w, &c->m.capture); break;
    case CTL_FX: hl_put_fx_req(&w, &c->m.fx); break;
    case CTL_FX_LIST: hl_put_name(&w, &c->m.name); break;
    case CTL_DUCK: hl_put_duck_rule(&w, &c->m.duck); break;
    case CTL_RZONE: hl_put_rzone(&w, &c->m.rzone); break;
    case CTL_SNAPSHOT: hl_put_snapshot(&w, &c->m.snapshot); break;
    case CTL_CONE: hl_put_cone(&w, &c->m.cone); break;
    case CTL_ATTEN: hl_put_atten(&w, &c->m.atten); break;
    case CTL_BANK: hl_put_bank(&w, &c->m.bank); break;
    case CTL_ZONE: hl_put_zone(&w, &c->m.zone); break;
    case CTL_MUSIC: hl_put_music_req(&w, &c->m.music); break;
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
    case CTL_PARAMS:
    case CTL_BUSES:
    case CTL_BANKS:
    case CTL_ZONES:
    case CTL_RZONES:
    case CTL_SNAPSHOTS:
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
