#!/usr/bin/env python3
"""The ABI of libheliod only grows: checks the built library and public
structs against client/libheliod.abi.

  check_abi.py LIBHELIOD.so ABI_LAYOUT_EXE client/libheliod.abi [client/heliod.h] [--write]

Fails when the soname changed, an exported symbol (with its version node)
disappeared, or a listed struct's size or a field's offset changed (a
field may not be removed or renamed either). New symbols, structs and
fields pass, with a note: add them to client/libheliod.abi (--write prints
the current list to stdout, to copy the new lines from; never rewrite a
line that changed: that is an ABI break, which needs a new soname).
"""
import re
import subprocess
import sys


def current(lib, layout):
    lines = []
    dyn = subprocess.run(["readelf", "-dW", lib], check=True, capture_output=True,
                         text=True).stdout
    m = re.search(r"\(SONAME\).*\[(.*)\]", dyn)
    lines.append("soname %s" % (m.group(1) if m else "?"))
    nm = subprocess.run(["nm", "-D", "--defined-only", lib], check=True, capture_output=True,
                        text=True).stdout
    syms = []
    for l in nm.splitlines():
        parts = l.split()
        if len(parts) == 3 and "@" in parts[2] and parts[1] != "A":
            name, _, node = parts[2].partition("@")
            syms.append("symbol %s %s" % (node.lstrip("@"), name))
        elif len(parts) == 3 and parts[1] != "A":
            syms.append("symbol - %s" % parts[2])  # unversioned: the map lost it
    lines += sorted(syms)
    lines += subprocess.run([layout], check=True, capture_output=True,
                            text=True).stdout.splitlines()
    return lines


def main():
    lib, layout, abi = sys.argv[1:4]
    now = current(lib, layout)
    if "--write" in sys.argv:
        print("\n".join(now))
        return 0
    want = [l for l in open(abi).read().splitlines() if l and not l.startswith("#")]

    def key(l):  # what a line is about: "symbol NAME", "struct T", "field T.f", "soname"
        p = l.split()
        return p[0] if p[0] == "soname" else "%s %s" % (p[0], p[-1] if p[0] == "symbol" else p[1])

    have = {key(l): l for l in now}
    bad = 0
    # every public struct is measured: abi_layout.c is regenerated when one is added
    if len(sys.argv) > 4 and not sys.argv[4].startswith("--"):
        for name in re.findall(r"^} (heliod_\w+_t);", open(sys.argv[4]).read(), re.M):
            if "struct " + name not in have:
                print("NOT MEASURED: %s: run tests/abi/gen_layout.py > tests/abi/abi_layout.c"
                      % name)
                bad += 1
    for l in want:
        k = key(l)
        if k not in have:
            print("ABI BREAK: %s is gone (listed as '%s')" % (k, l))
            bad += 1
        elif have[k] != l:
            print("ABI BREAK: '%s' is now '%s'" % (l, have[k]))
            bad += 1
    listed = {key(l) for l in want}
    new = [l for l in now if key(l) not in listed]
    for l in new:
        print("new (allowed; add it to %s): %s" % (abi, l))
    print("%d listed, %d new, %d broken" % (len(want), len(new), bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
