#!/usr/bin/env python3
"""Writes client/python/heliod/_schema.py, the Python client's message
tables, from the protocol schema (proto/hl_schema.h) as
tests/proto/schema_dump prints it:

  client/python/gen_schema.py build/tests/proto/schema_dump > client/python/heliod/_schema.py

(or with --check: exit 1 unless the checked-in file is what it would write;
meson test python-schema-generated runs that). The generated file is
checked in so that `pip install client/python` works from the source tree;
it is never edited by hand: change the schema, rebuild, run this.
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "heliod", "_schema.py")


FLOATS = ("F32", "F32OPT", "F64")


def num(v, kind=""):
    """A default or limit as Python writes it: a float field's as a float,
    the rest as ints."""
    if v is None:
        return "None"
    if kind in FLOATS or not float(v).is_integer():
        return repr(float(v))
    return str(int(v))


def since(s):
    major, minor = (int(x) for x in s.split("."))
    return "0x%02x%02x" % (major, minor)


def render(dump):
    msgs = json.loads(subprocess.run([dump], check=True, capture_output=True,
                                     text=True).stdout)
    consts = json.loads(subprocess.run([dump, "--constants"], check=True, capture_output=True,
                                       text=True).stdout)
    out = ['"""_schema - the Python client\'s message tables, GENERATED from the protocol',
           "schema (proto/hl_schema.h, printed by tests/proto/schema_dump) by",
           "client/python/gen_schema.py: do not edit; regenerate with",
           "",
           "  ninja -C build tests/proto/schema_dump",
           "  client/python/gen_schema.py build/tests/proto/schema_dump > client/python/heliod/_schema.py",
           "",
           "(meson test python-schema-generated fails while this file differs from",
           'what the generator writes)."""',
           "",
           "# MESSAGES[name]: the body's fields in wire order, each",
           "# (name, KIND, ARG, SUB, DEFAULT, SINCE) as hl_schema.h declares them; SINCE",
           "# is 0x0100 | minor (a field after 1.0 is optional at the end of a body)",
           "MESSAGES = {"]
    for m in msgs:
        out.append('    "%s": (  # %s' % (m["name"], m["doc"]))
        for f in m["fields"]:
            sub = '"%s"' % f["sub"] if f["sub"] else "None"
            out.append('        ("%s", "%s", %s, %s, %s, %s),' % (
                f["name"], f["kind"], num(f["arg"]), sub, num(f["default"], f["kind"]),
                since(f["since"])))
        out.append("    ),")
    out.append("}")
    out.append("")
    out.append("# flag bits of the flag fields, and PAUSE's scopes (proto/hl_proto.h)")
    for name, value in consts["flags"]:
        out.append("%s = 0x%x" % (name, value) if not name.startswith("PAUSE_")
                   else "%s = %d" % (name, value))
    out.append("")
    out.append("# the cue enumerations' names in wire order (hl_enum_name)")
    for name, names in consts["enums"]:
        line = "%s = (%s)" % (name, ", ".join('"%s"' % n for n in names))
        if len(line) > 99:
            line = "%s = (\n    %s)" % (name, ",\n    ".join('"%s"' % n for n in names))
        out.append(line)
    return "\n".join(out) + "\n"


def main():
    args = [a for a in sys.argv[1:] if a != "--check"]
    if len(args) != 1:
        sys.stderr.write(__doc__)
        return 2
    text = render(args[0])
    if "--check" in sys.argv:
        with open(OUT) as f:
            have = f.read()
        if have != text:
            import difflib
            sys.stdout.writelines(difflib.unified_diff(
                have.splitlines(True), text.splitlines(True), OUT, "generated"))
            print("%s is not what gen_schema.py writes: regenerate it (see its header)" % OUT)
            return 1
        print("%s: as generated (%d messages, %d lines)" % (
            OUT, text.count('": (  #'), text.count("\n")))
        return 0
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
