#!/usr/bin/env bash
# test.sh - build everything and run the whole test suite, twice: an optimised
# build, then an AddressSanitizer + UndefinedBehaviorSanitizer build.
# Usage: scripts/test.sh            (from anywhere inside the checkout)
# Knobs: SANITIZE=0 skips the sanitizer pass; BUILD_DIR (default build).
set -euo pipefail
top="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$top"
bash scripts/deps.sh

BUILD_DIR="${BUILD_DIR:-build}"
passed=0 failed=0 skipped=0
# Adds one meson test run's results (from its testlog.json) to the totals.
count() {
    read -r p f s < <(python3 -c '
import json, sys
c = {"p": 0, "f": 0, "s": 0}
for line in open(sys.argv[1]):
    r = json.loads(line)["result"]
    c["p" if r == "OK" else "s" if r in ("SKIP", "EXPECTEDFAIL") else "f"] += 1
print(c["p"], c["f"], c["s"])' "$1/meson-logs/testlog.json")
    passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
}
[ -f "$BUILD_DIR/build.ninja" ] || meson setup "$BUILD_DIR" >/dev/null
ninja -C "$BUILD_DIR"
meson test -C "$BUILD_DIR" --print-errorlogs --num-processes 2
count "$BUILD_DIR"

if [ "${SANITIZE:-1}" = 1 ]; then
    SAN_DIR="${BUILD_DIR}-asan"
    [ -f "$SAN_DIR/build.ninja" ] ||
        meson setup "$SAN_DIR" -Db_sanitize=address,undefined -Db_lundef=false \
            -Dbuildtype=debugoptimized >/dev/null
    ninja -C "$SAN_DIR"
    export ASAN_OPTIONS="abort_on_error=1:detect_leaks=1:strict_string_checks=1"
    export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
    export LSAN_OPTIONS="suppressions=$top/tests/lsan.supp:print_suppressions=0"
    meson test -C "$SAN_DIR" --print-errorlogs --num-processes 2 --timeout-multiplier 3
    count "$SAN_DIR"
fi
echo "tests: $passed passed, $failed failed, $skipped skipped"
