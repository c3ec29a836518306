#!/usr/bin/env python3
"""The ABI of libheliod only grows: checks the built library and public
structs against client/libheliod.abi.

  check_abi.py LIBHELIOD.so ABI_LAYOUT_EXE client/libheliod.abi [HEADER ...] [--write]

Fails when the soname changed, a version node (with its parent) or an
exported symbol (with its version node) disappeared, a symbol that is not
listed yet is not in the newest node (the node of the last "node" line: the
ones before are frozen, binaries recorded them), or a listed struct's size
or a field's offset changed (a field may not be removed or renamed either).
HEADER: the public headers, client/heliod.h first, as client/meson.build
installs them; the check reads heliod.h and every header it includes (in
its folder, recursively), fails on one that is not in the list (it would
not be installed), and each struct they declare must be measured by
abi_layout.c. New symbols, structs
and fields pass, with a note: add them to client/libheliod.abi (--write
prints the current list to stdout, to copy the new lines from; never
rewrite a line that changed: that is an ABI break, which needs a new
soname).
"""
import os
import re
import subprocess
import sys


def current(lib, layout):
    lines = []
    dyn = subprocess.run(["readelf", "-dW", lib], check=True, capture_output=True,
                         text=True).stdout
    m = re.search(r"\(SONAME\).*\[(.*)\]", dyn)
    lines.append("soname %s" % (m.group(1) if m else "?"))
    # version definitions: "node NAME [PARENT]" (the base entry is the soname)
    for d in re.split(r"\n(?=\s*0x[0-9a-f]+: Rev:)", subprocess.run(
            ["readelf", "-VW", lib], check=True, capture_output=True,
            text=True).stdout.split(".gnu.version_d", 1)[-1].split(".gnu.version_r", 1)[0]):
        m = re.search(r"Flags: (\S+).*Name: (\S+)", d)
        if m and m.group(1) != "BASE":
            lines.append(" ".join(["node", m.group(2)] + re.findall(r"Parent \d+: (\S+)", d)))
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


def public_headers(top):
    """top and every header it includes from its own folder, recursively"""
    seen, todo = [], [top]
    while todo:
        h = todo.pop(0)
        if h in seen or not os.path.exists(h):
            continue
        seen.append(h)
        for inc in re.findall(r'^\s*#\s*include\s+"([^"]+)"', open(h).read(), re.M):
            todo.append(os.path.join(os.path.dirname(h), inc))
    return seen


def main():
    lib, layout, abi = sys.argv[1:4]
    now = current(lib, layout)
    if "--write" in sys.argv:
        print("\n".join(now))
        return 0
    want = [l for l in open(abi).read().splitlines() if l and not l.startswith("#")]

    def key(l):  # what a line is about: "symbol NAME", "node N", "struct T", "field T.f", "soname"
        p = l.split()
        return p[0] if p[0] == "soname" else "%s %s" % (p[0], p[-1] if p[0] == "symbol" else p[1])

    have = {key(l): l for l in now}
    bad = 0
    # every public struct is measured: abi_layout.c is regenerated when one is added
    hdrs = [a for a in sys.argv[4:] if not a.startswith("--")]
    read = public_headers(hdrs[0]) if hdrs else []
    for hdr in read:
        if os.path.basename(hdr) not in {os.path.basename(h) for h in hdrs}:
            print("NOT INSTALLED: %s is included by heliod.h: add it to libheliod_headers "
                  "(client/meson.build)" % os.path.basename(hdr))
            bad += 1
    for hdr in read:
        for name in re.findall(r"^} (heliod_\w+_t);", open(hdr).read(), re.M):
            if "struct " + name not in have:
                print("NOT MEASURED: %s: run tests/abi/gen_layout.py > tests/abi/abi_layout.c"
                      % name)
                bad += 1
    # a new symbol goes into the newest node: the older ones are what binaries recorded
    nodes = [l.split()[1] for l in want if l.startswith("node ")]
    listed_syms = {key(l) for l in want if l.startswith("symbol ")}
    for l in now:
        p = l.split()
        if p[0] == "symbol" and key(l) not in listed_syms and nodes and p[1] != nodes[-1]:
            print("FROZEN NODE: %s is new but in %s, not the newest node %s (client/libheliod.map)"
                  % (p[2], p[1], nodes[-1]))
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
