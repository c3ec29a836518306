#!/usr/bin/env bash
# demo.sh - heliod's main job in one command: install what is missing, build,
# start the daemon (the real sound device when there is one, else the null
# driver), play a short scene through heliodctl - a streamed Ogg music bed, an
# ambient loop, a few panned one-shots, a "chime" cue with two variations in a
# category that holds two at once, and a humming drone on an emitter that
# circles the listener in 3D - record the mix to a WAV, and stop the daemon
# cleanly.
#
# Usage: scripts/demo.sh [OUT.wav]     (default: ./heliod-demo.wav)
# Knobs: DRIVER=auto|portaudio|null (default auto), BUILD_DIR (default build).
set -euo pipefail
top="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="$(realpath -m "${1:-heliod-demo.wav}")"
BUILD_DIR="${BUILD_DIR:-build}"
DRIVER="${DRIVER:-auto}"

cd "$top"
bash scripts/deps.sh
[ -f "$BUILD_DIR/build.ninja" ] || meson setup "$BUILD_DIR" >/dev/null
ninja -C "$BUILD_DIR" daemon/heliod client/heliodctl >/dev/null

work="$(mktemp -d)"
sock="$work/heliod.sock"
heliod="$BUILD_DIR/daemon/heliod"
ctl() { "$BUILD_DIR/client/heliodctl" --socket "$sock" "$@"; }
daemon_pid=""
cleanup() {
    [ -n "$daemon_pid" ] && kill "$daemon_pid" 2>/dev/null && wait "$daemon_pid" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT

# The scene's sounds, generated here (48 kHz mono WAV).
sox -q -n -r 44100 -c 2 "$work/music.ogg" synth 8 pluck A3 pluck C4 pluck E4 remix 1,2 1,3 \
    tremolo 0.5 40 reverb 30 fade q 0.02 8 0.02 gain -10
sox -q -n -r 48000 -c 1 "$work/ambience.wav" synth 2.2 brownnoise gain -14
sox -q -n -r 48000 -c 1 "$work/bell.wav" synth 1.2 pluck C5 pluck E5 pluck G5 remix - fade 0 1.2 1.0 gain -3
sox -q -n -r 48000 -c 1 "$work/bell2.wav" synth 1.2 pluck D5 pluck F5 pluck A5 remix - fade 0 1.2 1.0 gain -3
# Whole cycles in exactly 1 s at the engine rate: the loop joins sample-exactly.
sox -q -n -r 48000 -c 1 "$work/drone.wav" synth 1 sine 110 sine 111 sine 330 sine 441 remix - gain -4
sox -q -n -r 48000 -c 1 "$work/click.wav" synth 0.08 square 900 fade 0 0.08 0.07 gain -6

echo "demo: starting heliod (driver $DRIVER), recording to $out"
"$heliod" --driver "$DRIVER" --socket "$sock" --record "$out" &
daemon_pid=$!
for _ in $(seq 100); do ctl ping >/dev/null 2>&1 && break; sleep 0.05; done
ctl status

for s in ambience bell bell2 drone click; do ctl load "$s" "$work/$s.wav" >/dev/null; done
ctl load music "$work/music.ogg" --stream >/dev/null     # decoded while it plays
ctl sounds

# The mixer graph: a hall reverb zone around the listener (the chimes send
# to it) and a gentle high-shelf EQ on the music bus.
ctl reverb-zone hall --pos 0,0,0 --radius 8 --fade 4 --preset hall >/dev/null
ctl fx add music eq --type highshelf --freq 6000 --gain -3 >/dev/null

# A cue: two variations, never the same twice in a row, a little random pitch
# and gain (resampled by the band-limited sinc interpolator: bells are
# bright), in a category that holds two chimes at once (a third fades the
# oldest out).
ctl category chimes --max-instances 2 --overflow fade-oldest --fade-out 300
ctl cue chime --sound bell --sound bell2 --pick shuffle --pitch-rand 60 --gain-rand 2 \
    --category chimes --3d --max-distance 40 --send reverb_zones:-6 --interp sinc

# Noise has no natural loop point: loop 0.1 s..2.2 s with a 50 ms crossfade.
ctl play ambience --loop --loop-start 4800 --loop-end 105600 --xfade 50 --gain -6 \
    --fade-in 500 >/dev/null
ctl play music --loop --gain -3 --bus music --fade-in 300 >/dev/null
# The drone rides an emitter (a moving object): one command moves every voice on it.
ctl emitter create craft --pos 0,0,-2
drone=$(ctl play drone --loop --emitter craft --min-dist 1 --max-dist 40 --fade-in 200)
echo "demo: drone is voice $drone on emitter craft; circling the listener"

# Move the emitter once around the listener in 4 s (40 steps), with one-shots
# panned around it and chimes from the cue.
for i in $(seq 0 39); do
    read -r x z < <(awk -v i="$i" 'BEGIN { a = i / 40 * 6.2831853; printf "%.3f %.3f\n", 3*sin(a), -3*cos(a) }')
    ctl emitter set craft --pos "$x,0,$z" --ramp 100 >/dev/null
    case $i in
        5) ctl play chime --pos -3,0,-1 >/dev/null ;;
        10) ctl play chime --pos 3,0,-1 >/dev/null ;;
        15) ctl play bell --pan 0.8 --pitch 1.5 >/dev/null ;;
        20) ctl play chime --pos 0,0,-4 >/dev/null ;;
        25) ctl play click --pan -0.3 >/dev/null; ctl play click --pan 0.3 --pitch 0.8 >/dev/null ;;
        30) ctl play chime --pos -2,0,0 >/dev/null ;;
    esac
    sleep 0.1
done
ctl voices
ctl cues
ctl buses
ctl emitter destroy craft --fade 400 >/dev/null
ctl stop --all --fade 400 >/dev/null
sleep 0.6
ctl stats | grep -E '^(callbacks|xruns|callback_load_max|voices_stolen|cmds_applied|master.peak_db|master.rms_db|loudness.momentary) ' || true

kill -TERM "$daemon_pid"
wait "$daemon_pid"
daemon_pid=""
echo "demo: done; wrote $out ($(soxi -D "$out" 2>/dev/null || echo '?') s)"
