#!/usr/bin/env bash
# check_units.sh BUILD_DIR HAVE_LIBSYSTEMD - installs the build into a
# scratch DESTDIR and checks the installed user units: the sandboxing and
# real-time directives are there, the ones that would break a user audio
# daemon are not, and systemd-analyze verify (when installed) has nothing to
# say about them (it reports bad values as warnings, so any output fails).
set -euo pipefail
build="$1" have_sd="$2"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
meson install -C "$build" --destdir "$tmp/root" --no-rebuild --quiet >/dev/null
svc="$(find "$tmp/root" -path '*systemd/user/heliod.service' | head -n1)"
sock="$(find "$tmp/root" -path '*systemd/user/heliod.socket' | head -n1)"
bin="$(find "$tmp/root" -path '*/bin/heliod' -type f | head -n1)"
[ -f "$svc" ] && [ -f "$sock" ] && [ -x "$bin" ] || { echo "units or heliod not installed"; exit 1; }

fail=0
need() { # file line...
    local f="$1"; shift
    for l in "$@"; do
        grep -qxF -- "$l" "$f" || { echo "missing in $(basename "$f"): $l"; fail=1; }
    done
}
forbid() { # file regex...
    local f="$1"; shift
    for r in "$@"; do
        if grep -qE -- "$r" "$f"; then echo "must not be in $(basename "$f"): $r"; fail=1; fi
    done
}
need "$svc" "ConditionUser=!root" "Slice=session.slice" "NoNewPrivileges=yes" \
    "LockPersonality=yes" "MemoryDenyWriteExecute=yes" "RestrictNamespaces=yes" \
    "RestrictAddressFamilies=AF_UNIX" "SystemCallArchitectures=native" \
    "SystemCallFilter=@system-service @resources @memlock" "LimitRTPRIO=95" \
    "LimitRTTIME=200ms" "LimitMEMLOCK=64M" "MemoryMax=3G" "TasksMax=64"
need "$sock" "ConditionUser=!root"
# RestrictRealtime forbids SCHED_FIFO; the Protect*/Private* ones need user
# namespaces in a user unit and would hide /dev/snd, /tmp or the home sounds
forbid "$svc" '^RestrictRealtime=' '^PrivateDevices=' '^ProtectSystem=' '^ProtectHome=' \
    '^PrivateTmp=' '^PrivateUsers=' '^LimitMEMLOCK=infinity' '^SystemCallFilter=.*~@resources'
if [ "$have_sd" = 1 ]; then
    need "$svc" "Type=notify" "WatchdogSec=5s"
else
    need "$svc" "Type=simple"
    forbid "$svc" '^WatchdogSec='
fi

if command -v systemd-analyze >/dev/null 2>&1; then
    mkdir "$tmp/v"
    sed "s|^ExecStart=.*|ExecStart=$bin|" "$svc" >"$tmp/v/heliod.service"
    cp "$sock" "$tmp/v/heliod.socket"
    out="$(cd "$tmp/v" && XDG_RUNTIME_DIR="$tmp" systemd-analyze verify --user --man=no \
        heliod.service heliod.socket 2>&1)" || { echo "$out"; echo "verify failed"; fail=1; }
    if [ -n "$out" ]; then echo "systemd-analyze verify: $out"; fail=1; fi
else
    echo "systemd-analyze not installed: directives checked, verify skipped"
fi
[ "$fail" = 0 ] && echo "units ok: $svc"
exit "$fail"
