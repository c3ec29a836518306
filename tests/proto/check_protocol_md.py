#!/usr/bin/env python3
"""PROTOCOL.md's field tables match the schema (proto/hl_schema.h).

usage: check_protocol_md.py SCHEMA_DUMP PROTOCOL.md

For every message of the schema dump whose heading (**DOC**) PROTOCOL.md
has, the first table after the heading must list exactly the schema's wire
fields, in order, with the same types (rows of type "..." are prose
placeholders and skipped). A field appended after 1.0 (schema "since"
1.N) must say "since 1.N" in its row, and a row that says "since 1.N" must
be such a field. A message without a table must be one of PROSE below,
which PROTOCOL.md describes in words.
"""
import json
import re
import subprocess
import sys

# Described in words (a nested body plus a few fields) or as part of another table.
PROSE = {
    "CUE_COUNTERS": "in the CUE_INFO table, as 'u64 x 10' and two u32",
    "ZONE_INFO": "'a ZONE body (action 0) followed by ...'",
    "DUCK_INFO": "'a DUCK body (on = 1) followed by ...'",
    "RZONE_INFO": "'an RZONE body followed by ...'",
    "CLOCK": "in the Time section",
}
# Rows the table documents beyond the schema's fields.
EXTRA = {
    "REPLY": {"message"},  # a str(255) that follows only when status < 0
}
# Headings that are not a bold line of their own.
HEADING = {"REPLY": "Every request without NOREPLY", "LIST": "**Lists**"}


def tables(md):
    """{heading: [(field, type, rest of the row), ...]} for the first table after each heading."""
    out = {}
    lines = md.splitlines()
    for i, line in enumerate(lines):
        m = re.match(r"\*\*([A-Za-z_]+)\*\*", line)
        heads = []
        if m:
            heads.append(m.group(1).upper())
        for doc, start in HEADING.items():
            if line.startswith(start):
                heads.append(doc)
        for head in heads:
            if head in out:
                continue
            rows = None
            for l in lines[i + 1:]:
                if l.startswith("**") or l.startswith("#"):
                    break
                if l.startswith("|"):
                    cells = [c.strip() for c in l.strip().strip("|").split("|")]
                    if rows is None:
                        if "field" not in cells or "type" not in cells:
                            break
                        fi, ti = cells.index("field"), cells.index("type")
                        rows = []
                        continue
                    if set(cells[0]) <= set("-"):
                        continue
                    rows.append((cells[fi].strip("`"), cells[ti].replace(" ", ""),
                                 " ".join(c for k, c in enumerate(cells) if k not in (fi, ti))))
                elif rows is not None:
                    break
            if rows is not None:
                out[head] = rows
    return out


def main():
    dump, md_path = sys.argv[1], sys.argv[2]
    schema = json.loads(subprocess.run([dump], check=True, capture_output=True,
                                       text=True).stdout)
    md = tables(open(md_path, encoding="utf-8").read())
    bad = 0
    for msg in schema:
        doc = msg["doc"]
        want = [(r["field"], r["type"].replace(" ", "")) for r in msg["rows"]]
        if doc not in md:
            if doc not in PROSE:
                print(f"{doc} ({msg['name']}): no field table in PROTOCOL.md")
                bad += 1
            continue
        rows = [r for r in md[doc] if r[1] != "..." and r[0] not in EXTRA.get(doc, ())]
        got = [r[:2] for r in rows]
        since = {f["name"]: f["since"] for f in msg["fields"]}
        for field, _, notes in rows:
            said = re.findall(r"since (1\.\d+)", notes)
            want_since = since.get(field, "1.0")
            if (want_since != "1.0" and want_since not in said) or \
               (said and said != [want_since]):
                bad += 1
                print(f"{doc} ({msg['name']}).{field}: the schema says since {want_since}, "
                      f"PROTOCOL.md's row {'since ' + ', '.join(said) if said else 'nothing'}")
        if got != want:
            bad += 1
            print(f"{doc} ({msg['name']}): PROTOCOL.md's table differs from the schema")
            for k in range(max(len(got), len(want))):
                g = got[k] if k < len(got) else ("-", "-")
                w = want[k] if k < len(want) else ("-", "-")
                mark = "  " if g == w else "!!"
                print(f"   {mark} doc {g[0]:<18} {g[1]:<16} schema {w[0]:<18} {w[1]}")
    print(f"{len(schema)} messages, {bad} differing")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
