#!/bin/sh
# help.sh - every benchmark's --help prints its usage ("usage: ...") on
# stdout and exits 0, as bench_opts.h promises (the `bench-help` test).
# Usage: help.sh BINARY...   (a binary given twice is run once)
set -u
status=0
seen=" "
for b in "$@"; do
    case "$seen" in *" $b "*) continue ;; esac
    seen="$seen$b "
    out=$("$b" --help 2>/dev/null)
    rc=$?
    if [ "$rc" -ne 0 ]; then
        echo "help: $b --help exited with status $rc" >&2
        status=1
    elif [ "${out#usage: }" = "$out" ]; then
        echo "help: $b --help printed no usage on stdout" >&2
        status=1
    fi
done
[ "$status" -eq 0 ] && echo "help: $(echo "$seen" | wc -w) benchmarks print their usage"
exit "$status"
