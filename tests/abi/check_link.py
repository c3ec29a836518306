#!/usr/bin/env python3
"""libheliod's soname and its compat name (meson test libheliod_link).

  check_link.py LIBHELIOD.so ABI_RUN ABI_RUN_V0

ABI_RUN is tests/abi/abi_run.c linked against libheliod.so.1, ABI_RUN_V0 the
same program linked against a stand-in libheliod.so.0 (heliod_v0.c: node
HELIOD_0.1, functions that fail), as a game built against that release is.
Checks the soname, what each program recorded (DT_NEEDED and the version
node it needs), runs the first, and runs the second with libheliod.so.0
linked to the real library as meson install lays it out (and once on the
stand-in, which must fail: the check can tell the two apart).
"""
import os
import re
import subprocess
import sys
import tempfile


def readelf(flag, path):
    return subprocess.run(["readelf", flag, "-W", path], check=True, capture_output=True,
                          text=True).stdout


def needs(exe):
    """(DT_NEEDED libheliod entries, {library: [version nodes]})"""
    needed = [n for n in re.findall(r"\(NEEDED\).*\[(.*)\]", readelf("-d", exe))
              if n.startswith("libheliod")]
    nodes, cur = {}, None
    for l in readelf("-V", exe).splitlines():
        m = re.search(r"File: (\S+)", l)
        if m:
            cur = m.group(1)
            continue
        m = re.search(r"Name: (\S+)", l)
        if m and cur and cur.startswith("libheliod"):
            nodes.setdefault(cur, []).append(m.group(1))
    return needed, nodes


def run(exe, env_add, tag):
    env = {k: v for k, v in os.environ.items() if k != "LD_LIBRARY_PATH"}  # meson's has both
    env.update(env_add)
    p = subprocess.run([exe], capture_output=True, text=True, env=env, timeout=20)
    print("%s: exit %d: %s" % (tag, p.returncode, (p.stdout + p.stderr).strip()))
    return p.returncode


def main():
    lib, run1, run0 = sys.argv[1:4]
    bad = 0
    soname = re.search(r"\(SONAME\).*\[(.*)\]", readelf("-d", lib))
    soname = soname.group(1) if soname else "?"
    print("soname %s" % soname)
    if soname != "libheliod.so.1":
        print("FAIL: soname %s, want libheliod.so.1" % soname)
        bad += 1
    for exe, want in ((run1, "libheliod.so.1"), (run0, "libheliod.so.0")):
        needed, nodes = needs(exe)
        print("%s: NEEDED %s, nodes %s" % (os.path.basename(exe), needed, nodes))
        if needed != [want] or nodes.get(want) != ["HELIOD_0.1"]:
            print("FAIL: %s should need %s, node HELIOD_0.1" % (exe, want))
            bad += 1
    if run(run1, {}, "abi_run on libheliod.so.1") != 0:
        bad += 1
    with tempfile.TemporaryDirectory() as d:
        os.symlink(os.path.realpath(lib), os.path.join(d, "libheliod.so.0"))
        if run(run0, {"LD_LIBRARY_PATH": d}, "abi_run_v0 on libheliod.so.0 -> %s"
               % os.path.basename(os.path.realpath(lib))) != 0:
            bad += 1
    if run(run0, {}, "abi_run_v0 on the stand-in .so.0 (must fail)") == 0:
        print("FAIL: the stand-in library passed: the check cannot tell the libraries apart")
        bad += 1
    print("%s" % ("FAIL" if bad else "ok"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
