#!/bin/sh
# smoke.sh - runs one benchmark at a tiny size as a test (the `bench` suite of
# meson test): it passes when the benchmark exits 0 and prints at least one
# result line `NAME key=value ...` (NAME as given, or NAME-something) in which
# no failure count is non-zero (failed_clients, failed, lost, other_errors,
# local_errors, errors). The figures themselves are not judged: this proves
# that every bench still runs against the current daemon and protocol.
# Usage: smoke.sh NAME BINARY [ARGS...]
set -u
name=${1:?usage: smoke.sh NAME BINARY [ARGS...]}
shift
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$@" >"$out"
rc=$?
cat "$out"
if [ "$rc" -ne 0 ]; then
    echo "smoke: $name exited with status $rc" >&2
    exit 1
fi
awk -v name="$name" '
    $1 == name || index($1, name "-") == 1 {
        lines++
        for (i = 2; i <= NF; i++) {
            n = split($i, kv, "=")
            if (n != 2) continue
            if (kv[1] ~ /^(failed_clients|failed|lost|other_errors|local_errors|errors)$/ &&
                kv[2] + 0 != 0) {
                print "smoke: " name ": " $i " in: " $0 > "/dev/stderr"
                bad = 1
            }
        }
    }
    END {
        if (!lines) { print "smoke: " name " printed no result line" > "/dev/stderr"; exit 1 }
        exit bad
    }' "$out"
