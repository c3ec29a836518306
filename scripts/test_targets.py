#!/usr/bin/env python3
"""test_targets.py - the files ninja must build for one pass of scripts/test.sh.

Usage: test_targets.py BUILD_DIR MODE [TEST...]
  asan: every test but the style, bench and alone suites
  tsan: the unit tests that run threads (suite threads) and the integration
        tests named (scripts/test.sh passes its TSAN_TESTS list)
Prints one path per line, relative to BUILD_DIR (meson introspect: each
selected test's dependencies), so a sanitizer build compiles only what its
tests run, not the benchmarks.
"""
import json
import os
import subprocess
import sys


def intro(build, what):
    return json.loads(subprocess.check_output(["meson", "introspect", build, what]))


def picked(mode, test, names):
    suites = {s.split(":", 1)[-1] for s in test["suite"]}
    if mode == "asan":
        return not suites & {"style", "bench", "alone"}
    if mode == "tsan":
        return "threads" in suites or test["name"] in names
    sys.exit("test_targets.py: mode must be asan or tsan")


def main():
    build, mode, names = sys.argv[1], sys.argv[2], set(sys.argv[3:])
    files = {t["id"]: t["filename"] for t in intro(build, "--targets")}
    want = set()
    for test in intro(build, "--tests"):
        if picked(mode, test, names):
            for dep in test["depends"]:
                want.update(os.path.relpath(f, build) for f in files.get(dep, []))
    print("\n".join(sorted(want)))


if __name__ == "__main__":
    main()
