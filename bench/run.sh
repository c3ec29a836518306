#!/usr/bin/env bash
# run.sh - run every heliod benchmark with one command and print their
# machine-readable result lines (`name key=value ...`) on stdout; progress and
# diagnostics go to stderr. See bench/README.md for what each figure means.
#
# usage: bench/run.sh [build-dir]        (default: ./build)
#
# Knobs (environment) [defaults]:
#   ONLY             benchmarks to run          ["wakeup mix kernels fixed meter callback latency throughput memory connect stream vm vm_callback time assets evict music"]
#   MIX_VOICES       voice counts for mix       ["1 64 256 1024 4096"]
#   MIX_S            timed audio seconds / run  [2]
#   MIX_VARIANTS     mix -r variants            ["preconv pitched"]
#   MIX_BUFFERS      mix -b (0 = one buffer per voice)  [0]
#   KERNEL_VOICES    kernels -v: voices (sources) visited in turn  ["1 1024"]
#   CB_COUNTS        callback voice counts      [0,64,256,1024]
#   CB_SETTLE        seconds measured per count [3]
#   JACK             PortAudio-on-JACK-dummy callback run: auto|0|1  [auto]
#   JACK_DEVICE      heliod --device for the JACK run (substring)  [system]
#   LAT_PLAYS        latency plays              [10000]
#   LAT_INTERVAL_US  latency pacing             [2000]
#   TP_CLIENTS       throughput client counts   [1,16]
#   TP_COMMANDS      throughput commands / run  [1000000]
#   TP_RATE          extra throughput pass paced at this many cmds/s (the first pass runs paced 500000 and the flood); 0 = skip  [0]
#   MEM_SOUNDS       memory: sounds loaded      [1000]
#   MEM_VOICES       memory: voices playing     [4096]
#   STREAM_S         seconds of 16 streamed Ogg voices (the issue's figure is 60)  [20]
#   VM_REAL          vm admission runs: real (mixer) voices, 4096 logical  ["64 256"]
#   VM_PLAYS         vm admission: timed plays per run  [200000]
#   VM_CUES          vm: cues sharing the logical pool (limit = logical / cues)  [128]
#   VM_RANK_SIZES    vm ranking runs, LOGICAL:REAL  ["4096:64 65536:1024"]
#   VM_RANKS         vm ranking passes timed per run  [100]
#   VMCB_LOGICAL     vm_callback: logical voices playing  [65536]
#   VMCB_REAL        vm_callback: real voices (--voices)  [1024]
#   VMCB_S           vm_callback: seconds measured (the issue's figure is 10)  [5]
# Default total runtime: about 2.5 minutes on a 2-core VM.
set -Eeuo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
BUILD="$(cd "${1:-$HERE/../build}" && pwd)"
B="$BUILD/bench"
export HELIOD_BIN="${HELIOD_BIN:-$BUILD/daemon/heliod}"

ONLY="${ONLY:-wakeup mix kernels fixed meter callback latency throughput memory connect stream vm vm_callback time assets evict music}"
MIX_VOICES="${MIX_VOICES:-1 64 256 1024 4096}"
MIX_S="${MIX_S:-2}"
MIX_VARIANTS="${MIX_VARIANTS:-preconv pitched}"
MIX_BUFFERS="${MIX_BUFFERS:-0}"
KERNEL_VOICES="${KERNEL_VOICES:-1 1024}"
CB_COUNTS="${CB_COUNTS:-0,64,256,1024}"
CB_SETTLE="${CB_SETTLE:-3}"
JACK="${JACK:-auto}"
JACK_DEVICE="${JACK_DEVICE:-system}"
LAT_PLAYS="${LAT_PLAYS:-10000}"
LAT_INTERVAL_US="${LAT_INTERVAL_US:-2000}"
TP_CLIENTS="${TP_CLIENTS:-1,16}"
TP_COMMANDS="${TP_COMMANDS:-1000000}"
TP_RATE="${TP_RATE:-0}"
MEM_SOUNDS="${MEM_SOUNDS:-1000}"
MEM_VOICES="${MEM_VOICES:-4096}"
STREAM_S="${STREAM_S:-20}"
VM_REAL="${VM_REAL:-64 256}"
VM_PLAYS="${VM_PLAYS:-200000}"
VM_CUES="${VM_CUES:-128}"
VM_RANK_SIZES="${VM_RANK_SIZES:-4096:64 65536:1024}"
VM_RANKS="${VM_RANKS:-100}"
VMCB_LOGICAL="${VMCB_LOGICAL:-65536}"
VMCB_REAL="${VMCB_REAL:-1024}"
VMCB_S="${VMCB_S:-5}"

status=0
want() { [[ " $ONLY " == *" $1 "* ]]; }
note() { echo "# $*" >&2; }
run() { # run a benchmark, remember a failure, keep going
    note "$*"
    "$@" || { note "FAILED ($?): $*"; status=1; }
}

echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
echo "# cpu:  $(lscpu | sed -n 's/^Model name:[[:space:]]*//p'), $(nproc) CPUs"
echo "# build: $BUILD"

if want mix; then
    for exe in "$B/mix" "$B/mix-native"; do
        [ -x "$exe" ] || continue
        for variant in $MIX_VARIANTS; do
            for n in $MIX_VOICES; do
                run "$exe" "$n" -s "$MIX_S" -b "$MIX_BUFFERS" -r "$variant"
            done
        done
    done
fi

if want kernels && [ -x "$B/kernels" ]; then
    for n in $KERNEL_VOICES; do
        run "$B/kernels" -v "$n" -k all
    done
fi
want wakeup && [ -x "$B/wakeup" ] && run "$B/wakeup" -s 5
want fixed && [ -x "$B/fixed" ] && run "$B/fixed"
want meter && [ -x "$B/meter" ] && run "$B/meter"

if want callback; then
    run "$B/callback" --driver null --counts "$CB_COUNTS" --settle "$CB_SETTLE"
    if [ "$JACK" != 0 ] && command -v jackd >/dev/null; then
        # A private JACK server with the dummy backend: real-time paced callbacks.
        export JACK_DEFAULT_SERVER="heliod-bench-$$"
        jackd --no-realtime -d dummy -r 48000 -p 256 >"${TMPDIR:-/tmp}/heliod-bench-jackd.$$.log" 2>&1 &
        jack_pid=$!
        trap 'kill "$jack_pid" 2>/dev/null || true' EXIT
        if command -v jack_wait >/dev/null; then
            jack_wait -w -t 10 >/dev/null 2>&1 || true
        else
            sleep 2
        fi
        if kill -0 "$jack_pid" 2>/dev/null; then
            run "$B/callback" --driver portaudio --device "$JACK_DEVICE" \
                --counts "$CB_COUNTS" --settle "$CB_SETTLE"
        else
            note "jackd did not start: see ${TMPDIR:-/tmp}/heliod-bench-jackd.$$.log"
            [ "$JACK" = 1 ] && status=1
        fi
        kill "$jack_pid" 2>/dev/null || true
        wait "$jack_pid" 2>/dev/null || true
        trap - EXIT
        unset JACK_DEFAULT_SERVER
    elif [ "$JACK" = 1 ]; then
        note "jackd not found"
        status=1
    fi
fi

want latency && run "$B/latency" --plays "$LAT_PLAYS" --interval-us "$LAT_INTERVAL_US"
if want throughput; then
    run "$B/throughput" --clients "$TP_CLIENTS" --commands "$TP_COMMANDS"
    [ "$TP_RATE" != 0 ] &&
        run "$B/throughput" --clients "$TP_CLIENTS" --commands "$TP_COMMANDS" --rate "$TP_RATE"
fi
want memory && run "$B/memory" --sounds "$MEM_SOUNDS" --voices "$MEM_VOICES"
want connect && run "$B/connect" --seconds "${CONNECT_S:-5}"
want stream && run "$B/stream" -s "$STREAM_S"
if want vm; then
    for r in $VM_REAL; do
        run "$B/vm" --logical 4096 --real "$r" --cues "$VM_CUES" --plays "$VM_PLAYS" --ranks 0
    done
    for lr in $VM_RANK_SIZES; do
        run "$B/vm" --logical "${lr%%:*}" --real "${lr##*:}" --cues "$VM_CUES" --plays 0 \
            --ranks "$VM_RANKS"
    done
fi
want vm_callback && run "$B/vm_callback" --driver null --logical "$VMCB_LOGICAL" \
    --real "$VMCB_REAL" --seconds "$VMCB_S"
# time: scheduled-start jitter over 10,000 plays, render speed of the 1024-voice scene
want time && run "$B/time" jitter -n 10000
want time && run "$B/time" render -v 1024 -s 10 --heliod "${HELIOD_BIN:-$B/../daemon/heliod}"
want assets && run "$B/assets" --heliod "${HELIOD_BIN:-$B/../daemon/heliod}"
want evict && run "$B/evict" --heliod "${HELIOD_BIN:-$B/../daemon/heliod}"
# music: 10 minutes rendered at 48 kHz (beats, transitions, stinger to the sample), BEAT delay
want music && run "$B/music" --heliod "${HELIOD_BIN:-$B/../daemon/heliod}"
exit "$status"
