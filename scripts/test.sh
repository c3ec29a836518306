#!/usr/bin/env bash
# test.sh - build everything and run the whole test suite, three times: an
# optimised build (every test, the style checks and the benchmarks' smoke
# runs), an AddressSanitizer + UndefinedBehaviorSanitizer build (every test
# that runs C code: unit, proto, client, rt, integration, fuzz), and a
# ThreadSanitizer build running the unit tests that run threads (suite
# threads: rings, streams, the loop-count seqlock) and the dispatcher-level
# integration tests and the device generation tests (failed switches, a long
# device loss and its swaps: the audio thread against the device worker); a
# single-threaded test gives TSan nothing to check. The sanitizer builds
# compile only what their tests run (scripts/test_targets.py), not the
# benchmarks.
# Usage: scripts/test.sh            (from anywhere inside the checkout)
# Knobs: SANITIZE=0 skips the ASan pass, TSAN=0 the TSan pass; BUILD_DIR
# (default build; the sanitizer builds go to BUILD_DIR-asan and BUILD_DIR-tsan);
# JOBS, tests run at once (default 5: most wait on the engine's real-time
# clock, not the CPU; those that must run alone say so to meson).
# A failing run does not stop the others; the exit status is 1 if any failed.
set -euo pipefail
top="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$top"
bash scripts/deps.sh

BUILD_DIR="${BUILD_DIR:-build}"
JOBS="${JOBS:-5}"
passed=0 failed=0 skipped=0 errors=0
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
# build_for DIR MODE [TEST...]: builds in DIR only what the tests of pass MODE
# (asan, tsan with the named tests) need; meson test --no-rebuild runs them.
build_for() {
    local files
    ninja -C "$1" build.ninja >/dev/null # regenerated first if a meson.build changed
    files="$(python3 "$top/scripts/test_targets.py" "$@")"
    # shellcheck disable=SC2086 # one path per line, none with a space
    ninja -C "$1" $files
}
# run_tests DIR [meson test args...]: runs, counts, never aborts the script.
run_tests() {
    local dir="$1"
    shift
    rm -f "$dir/meson-logs/testlog.json"
    "${wrap[@]}" meson test -C "$dir" --print-errorlogs --num-processes "$JOBS" "$@" || errors=1
    if [ -f "$dir/meson-logs/testlog.json" ]; then count "$dir"; else failed=$((failed + 1)); fi
}
wrap=()
# took NAME: prints how long the pass that just ended took (build + tests).
t_pass=$SECONDS
took() {
    echo "test.sh: $1 pass: $((SECONDS - t_pass)) s" >&2
    t_pass=$SECONDS
}

# ThreadSanitizer needs its fixed shadow layout: kernels with many mmap
# random bits (vm.mmap_rnd_bits > 28) break it ("unexpected memory mapping"),
# which `setarch -R` (no address randomisation) avoids. A probe decides: run
# directly, under setarch -R, or skip the pass with a message.
tsan_wrap() {
    local probe
    probe="$(mktemp -d)"
    printf '%s\n' '#include <pthread.h>' \
        'static int x;' \
        'static void *f(void *a) { (void)a; __atomic_fetch_add(&x, 1, __ATOMIC_RELAXED); return 0; }' \
        'int main(void) { pthread_t t; pthread_create(&t, 0, f, 0); pthread_join(t, 0); return 0; }' \
        >"$probe/p.c"
    local cc="${CC:-cc}" out=none
    if "$cc" -fsanitize=thread -o "$probe/p" "$probe/p.c" 2>/dev/null; then
        if "$probe/p" >/dev/null 2>&1; then
            out=direct
        elif command -v setarch >/dev/null && setarch "$(uname -m)" -R "$probe/p" >/dev/null 2>&1; then
            out=setarch
        fi
    fi
    rm -rf "$probe"
    echo "$out"
}
SAN_DIR="${BUILD_DIR}-asan"
TSAN_DIR="${BUILD_DIR}-tsan"
# the dispatcher-level and device-generation integration tests TSan runs, and
# the OpenAL library with two threads calling it (one list: built and run alike)
TSAN_TESTS=(daemon lifecycle-stall devgen device-long openal-api)
mode=none
[ "${TSAN:-1}" = 1 ] && mode="$(tsan_wrap)"
# -O1, as AddressSanitizer recommends: at -O2 its instrumentation makes the
# SIMD kernels' files a minute each to compile (sinc.c 65 s against 4 s), the
# tests run as fast. GCC's -Wformat-truncation reasons differently at -O1 and
# flags two bounded snprintfs: a warning there, the optimised build keeps it
# an error.
setup_asan() {
    [ -f "$SAN_DIR/build.ninja" ] ||
        meson setup "$SAN_DIR" -Db_sanitize=address,undefined -Db_lundef=false \
            -Doptimization=1 -Ddebug=true -Dc_args=-Wno-error=format-truncation >/dev/null
}
# -Wno-tsan: GCC cannot instrument atomic_thread_fence (dstream.c's seqlock)
# and warns; the accesses around it are still checked
setup_tsan() {
    [ -f "$TSAN_DIR/build.ninja" ] ||
        meson setup "$TSAN_DIR" -Db_sanitize=thread -Db_lundef=false \
            -Dbuildtype=debugoptimized -Dc_args=-Wno-tsan >/dev/null
}

[ -f "$BUILD_DIR/build.ninja" ] || meson setup "$BUILD_DIR" >/dev/null
ninja -C "$BUILD_DIR"
# The sanitizer builds compile in the background, at the lowest priority,
# while the plain tests run: those mostly wait on the engine's real-time clock
# (and hold on a loaded machine), so the two passes' compile time comes off
# the total. Each pass's own build_for below finishes (or repeats, showing
# the errors) whatever this did not.
prebuild_log="$(mktemp)"
(
    renice -n 19 -p "$BASHPID" >/dev/null 2>&1 || true
    if [ "${SANITIZE:-1}" = 1 ]; then setup_asan && build_for "$SAN_DIR" asan; fi
    if [ "$mode" != none ]; then setup_tsan && build_for "$TSAN_DIR" tsan "${TSAN_TESTS[@]}"; fi
) >"$prebuild_log" 2>&1 &
prebuild=$!
run_tests "$BUILD_DIR"
took plain
wait "$prebuild" || echo "test.sh: the background sanitizer build failed; each pass builds again" >&2
rm -f "$prebuild_log"

if [ "${SANITIZE:-1}" = 1 ]; then
    setup_asan
    build_for "$SAN_DIR" asan
    wrap=(env "ASAN_OPTIONS=abort_on_error=1:detect_leaks=1:strict_string_checks=1"
        "UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1"
        "LSAN_OPTIONS=suppressions=$top/tests/lsan.supp:print_suppressions=0")
    # style runs no C code; bench's smoke runs are checked by the first pass;
    # serial-long: long serial runs (the governor, device-long) of code the
    # other tests cover too (the suite stays under 8 minutes)
    run_tests "$SAN_DIR" --no-rebuild --timeout-multiplier 3 --no-suite style --no-suite bench \
        --no-suite packaging --no-suite alone --no-suite serial-long
    wrap=()
    took ASan+UBSan
fi

if [ "${TSAN:-1}" = 1 ]; then
    if [ "$mode" = none ]; then
        echo "tsan: ThreadSanitizer cannot run on this machine (no runtime, or the kernel's" \
            "address layout; try sysctl vm.mmap_rnd_bits=28): TSan pass skipped" >&2
    else
        setup_tsan
        build_for "$TSAN_DIR" tsan "${TSAN_TESTS[@]}"
        [ "$mode" = setarch ] && wrap=(setarch "$(uname -m)" -R)
        # atexit_sleep_ms=0: TSan otherwise sleeps 1 s in exit, which the
        # shutdown-time tests would count
        export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:atexit_sleep_ms=0"
        run_tests "$TSAN_DIR" --no-rebuild --timeout-multiplier 3 --suite threads
        run_tests "$TSAN_DIR" --no-rebuild --timeout-multiplier 3 "${TSAN_TESTS[@]}"
        wrap=()
        took TSan
    fi
fi
echo "tests: $passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ] && [ "$errors" = 0 ]
