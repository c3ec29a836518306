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
[ -f "$BUILD_DIR/build.ninja" ] || meson setup "$BUILD_DIR" >/dev/null
ninja -C "$BUILD_DIR"
meson test -C "$BUILD_DIR" --print-errorlogs --num-processes 2

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
fi
