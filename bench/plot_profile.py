#!/usr/bin/env python3
"""plot_profile.py - draws a `heliodctl profile` recording as a labelled PNG.

    bench/plot_profile.py prof.json prof.png [--width 900] [--text-scale 1|2]

A title line ("heliod profile: <file>, <N> samples, <span> s"), then three
panels sharing the time axis (seconds from the first sample), each with its
title, a legend naming every line in its colour, y-axis tick marks with
labels and light grid lines:
  1. callback load (x period): the window's mean (blue) and longest callback
     (orange) against the deadline (red dashed line at 1.0 = the period) and
     the p99 since start (grey); the y axis runs 0..max(1.2, 1.1 x the
     highest peak), ticked every 0.1/0.2/0.5/1/2/5.. (0, 0.5, 1.0 usually);
  2. voices: real (green) and virtual (purple), 0..1.1 x the most seen,
     ticked in whole voices;
  3. bus levels (dBFS): each bus's rms (-60..0, ticks at -60, -30, 0), one
     colour per bus, the master's peak in black ("master peak").
Time ticks (1/2/5 steps, about six) mark every panel; their labels and
"time (s)" run under the last one.

The text is drawn with the 5x7 pixel font defined below (FONT: digits,
A-Z, a-z and . , - _ + = % / : ( ) ?; anything else draws as '?'), at
--text-scale (default 1, the title one step larger), so nothing beyond
python3 is needed: standard library only (json, zlib, struct), the PNG
(8-bit RGB, filter 0 on every row) is written by hand. Prints one line of
figures (samples, span, load peak, voices max, buses, output) so a script
can check what it drew.
"""
import json
import os
import struct
import sys
import zlib

PALETTE = [(31, 119, 180), (255, 127, 14), (44, 160, 44), (148, 103, 189),
           (140, 86, 75), (227, 119, 194), (23, 190, 207), (188, 189, 34)]
INK = (30, 30, 30)           # text
FRAME = (160, 160, 160)      # panel outlines
TICK = (90, 90, 90)          # tick marks
GRID = (232, 232, 232)       # grid lines inside the panels
DEADLINE = (214, 39, 40)
P99 = (150, 150, 150)
MASTER = (0, 0, 0)

# 5x7 glyphs, seven rows top to bottom, '#' = ink. There is no row below the
# baseline: the descenders of g j p q y end on the bottom row, their bodies
# squeezed into the x-height, as on 5x7 displays.
FONT = {
    " ": "..... ..... ..... ..... ..... ..... .....",
    "0": ".###. #...# #..## #.#.# ##..# #...# .###.",
    "1": "..#.. .##.. ..#.. ..#.. ..#.. ..#.. .###.",
    "2": ".###. #...# ....# ...#. ..#.. .#... #####",
    "3": "##### ...#. ..#.. ...#. ....# #...# .###.",
    "4": "...#. ..##. .#.#. #..#. ##### ...#. ...#.",
    "5": "##### #.... ####. ....# ....# #...# .###.",
    "6": "..##. .#... #.... ####. #...# #...# .###.",
    "7": "##### ....# ...#. ..#.. .#... .#... .#...",
    "8": ".###. #...# #...# .###. #...# #...# .###.",
    "9": ".###. #...# #...# .#### ....# ...#. .##..",
    "A": ".###. #...# #...# ##### #...# #...# #...#",
    "B": "####. #...# #...# ####. #...# #...# ####.",
    "C": ".###. #...# #.... #.... #.... #...# .###.",
    "D": "###.. #..#. #...# #...# #...# #..#. ###..",
    "E": "##### #.... #.... ####. #.... #.... #####",
    "F": "##### #.... #.... ####. #.... #.... #....",
    "G": ".###. #...# #.... #.### #...# #...# .####",
    "H": "#...# #...# #...# ##### #...# #...# #...#",
    "I": ".###. ..#.. ..#.. ..#.. ..#.. ..#.. .###.",
    "J": "..### ...#. ...#. ...#. ...#. #..#. .##..",
    "K": "#...# #..#. #.#.. ##... #.#.. #..#. #...#",
    "L": "#.... #.... #.... #.... #.... #.... #####",
    "M": "#...# ##.## #.#.# #.#.# #...# #...# #...#",
    "N": "#...# #...# ##..# #.#.# #..## #...# #...#",
    "O": ".###. #...# #...# #...# #...# #...# .###.",
    "P": "####. #...# #...# ####. #.... #.... #....",
    "Q": ".###. #...# #...# #...# #.#.# #..#. .##.#",
    "R": "####. #...# #...# ####. #.#.. #..#. #...#",
    "S": ".#### #.... #.... .###. ....# ....# ####.",
    "T": "##### ..#.. ..#.. ..#.. ..#.. ..#.. ..#..",
    "U": "#...# #...# #...# #...# #...# #...# .###.",
    "V": "#...# #...# #...# #...# #...# .#.#. ..#..",
    "W": "#...# #...# #...# #.#.# #.#.# #.#.# .#.#.",
    "X": "#...# #...# .#.#. ..#.. .#.#. #...# #...#",
    "Y": "#...# #...# .#.#. ..#.. ..#.. ..#.. ..#..",
    "Z": "##### ....# ...#. ..#.. .#... #.... #####",
    "a": "..... ..... .###. ....# .#### #...# .####",
    "b": "#.... #.... #.##. ##..# #...# #...# ####.",
    "c": "..... ..... .###. #.... #.... #...# .###.",
    "d": "....# ....# .##.# #..## #...# #...# .####",
    "e": "..... ..... .###. #...# ##### #.... .###.",
    "f": "..##. .#..# .#... ###.. .#... .#... .#...",
    "g": "..... ..... .#### #...# .#### ....# .###.",
    "h": "#.... #.... #.##. ##..# #...# #...# #...#",
    "i": "..#.. ..... .##.. ..#.. ..#.. ..#.. .###.",
    "j": "...#. ..... ..##. ...#. ...#. #..#. .##..",
    "k": "#.... #.... #..#. #.#.. ##... #.#.. #..#.",
    "l": ".##.. ..#.. ..#.. ..#.. ..#.. ..#.. .###.",
    "m": "..... ..... ##.#. #.#.# #.#.# #...# #...#",
    "n": "..... ..... #.##. ##..# #...# #...# #...#",
    "o": "..... ..... .###. #...# #...# #...# .###.",
    "p": "..... ..... ####. #...# ####. #.... #....",
    "q": "..... ..... .#### #...# .#### ....# ....#",
    "r": "..... ..... #.##. ##..# #.... #.... #....",
    "s": "..... ..... .###. #.... .###. ....# ####.",
    "t": ".#... .#... ###.. .#... .#... .#..# ..##.",
    "u": "..... ..... #...# #...# #...# #..## .##.#",
    "v": "..... ..... #...# #...# #...# .#.#. ..#..",
    "w": "..... ..... #...# #...# #.#.# #.#.# .#.#.",
    "x": "..... ..... #...# .#.#. ..#.. .#.#. #...#",
    "y": "..... ..... #...# #...# .#### ....# .###.",
    "z": "..... ..... ##### ...#. ..#.. .#... #####",
    ".": "..... ..... ..... ..... ..... .##.. .##..",
    ",": "..... ..... ..... ..... .##.. ..#.. .#...",
    "-": "..... ..... ..... ##### ..... ..... .....",
    "_": "..... ..... ..... ..... ..... ..... #####",
    "+": "..... ..#.. ..#.. ##### ..#.. ..#.. .....",
    "=": "..... ..... ##### ..... ##### ..... .....",
    "%": "##... ##..# ...#. ..#.. .#... #..## ...##",
    "/": "..... ....# ...#. ..#.. .#... #.... .....",
    ":": "..... .##.. .##.. ..... .##.. .##.. .....",
    "(": "...#. ..#.. .#... .#... .#... ..#.. ...#.",
    ")": ".#... ..#.. ...#. ...#. ...#. ..#.. .#...",
    "?": ".###. #...# ....# ...#. ..#.. ..... ..#..",
}
GLYPH_W, GLYPH_H = 5, 7   # ink
CELL_W, CELL_H = 6, 8     # with one column and one row of space


def glyph(ch):
    """The rows of ch's glyph (a list of 7 strings of 5 '#'/'.'); '?' if unknown."""
    return FONT.get(ch, FONT["?"]).split()


def text_width(s, scale=1):
    return max(0, len(s) * CELL_W * scale - scale)


def text_height(scale=1):
    return GLYPH_H * scale


class Canvas:
    def __init__(self, w, h):
        self.w, self.h = w, h
        self.px = bytearray(b"\xff" * (w * h * 3))

    def dot(self, x, y, c):
        if 0 <= x < self.w and 0 <= y < self.h:
            i = (y * self.w + x) * 3
            self.px[i:i + 3] = bytes(c)

    def line(self, x0, y0, x1, y1, c, dash=0):
        x0, y0, x1, y1 = int(round(x0)), int(round(y0)), int(round(x1)), int(round(y1))
        dx, dy = abs(x1 - x0), -abs(y1 - y0)
        sx, sy = (1 if x0 < x1 else -1), (1 if y0 < y1 else -1)
        err, n = dx + dy, 0
        while True:
            if not dash or (n // dash) % 2 == 0:
                self.dot(x0, y0, c)
            n += 1
            if x0 == x1 and y0 == y1:
                return
            e2 = 2 * err
            if e2 >= dy:
                err += dy
                x0 += sx
            if e2 <= dx:
                err += dx
                y0 += sy

    def rect(self, x0, y0, x1, y1, c):
        self.line(x0, y0, x1, y0, c)
        self.line(x1, y0, x1, y1, c)
        self.line(x1, y1, x0, y1, c)
        self.line(x0, y1, x0, y0, c)

    def text(self, x, y, s, c=INK, scale=1):
        """Draws s with its top-left corner at (x, y); returns its width."""
        for k, ch in enumerate(s):
            gx = x + k * CELL_W * scale
            for r, row in enumerate(glyph(ch)):
                for col, bit in enumerate(row):
                    if bit == "#":
                        for yy in range(scale):
                            for xx in range(scale):
                                self.dot(gx + col * scale + xx, y + r * scale + yy, c)
        return text_width(s, scale)

    def png(self):
        raw = b"".join(b"\x00" + bytes(self.px[y * self.w * 3:(y + 1) * self.w * 3])
                       for y in range(self.h))

        def chunk(kind, data):
            body = kind + data
            return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

        ihdr = struct.pack(">IIBBBBB", self.w, self.h, 8, 2, 0, 0, 0)
        return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) +
                chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def nice_step(span, count):
    """The smallest 1, 2 or 5 x 10^k step that cuts span into at most count parts."""
    raw = span / max(count, 1)
    step = 10.0 ** -6
    while True:
        for m in (1, 2, 5):
            if m * step >= raw * (1 - 1e-9):
                return m * step
        step *= 10


def tick_label(v, step):
    """v written with as many decimals as the step needs; 0 as "0"."""
    if abs(v) < step * 1e-6:
        return "0"
    decimals = 0
    while step * 10 ** decimals < 1 - 1e-9 and decimals < 6:
        decimals += 1
    return "%.*f" % (decimals, v)


def ticks(lo, hi, step):
    out, k = [], 0
    while lo + k * step <= hi * (1 + 1e-9) + 1e-12:
        out.append(lo + k * step)
        k += 1
    return out


def legend_rows(entries, x_start, x_end, scale):
    """Places legend entries (name, colour, dash) left to right from x_start,
    wrapping at x_end; returns a list of rows, each [(x, name, colour, dash)]."""
    swatch, gap = 14 * scale, 12 * scale
    rows, row, x = [], [], x_start
    for name, colour, dash in entries:
        w = swatch + 4 * scale + text_width(name, scale)
        if row and x + w > x_end:
            rows.append(row)
            row, x = [], x_start
        row.append((x, name, colour, dash))
        x += w + gap
    if row:
        rows.append(row)
    return rows


class Panel:
    """A plot area with a header (title and legend) above it: maps (t, v) to
    pixels, v in [lo, hi], and draws its y ticks and grid."""

    def __init__(self, title, lo, hi, yticks, legend):
        self.title, self.lo, self.hi = title, lo, hi if hi > lo else lo + 1.0
        self.yticks, self.legend = yticks, legend   # [(v, label)], [(name, colour, dash)]

    def layout(self, x0, x1, top, height, scale):
        """Places the header from top and the plot area under it; returns the
        y just below the plot area."""
        self.scale, self.x0, self.x1 = scale, x0, x1
        self.header_y = top
        after_title = x0 + text_width(self.title, scale) + 20 * scale
        self.rows = legend_rows(self.legend, after_title, x1, scale)
        # rows after the first start at the left edge, under the title
        for row in self.rows[1:]:
            shift = row[0][0] - x0
            row[:] = [(x - shift, n, c, d) for x, n, c, d in row]
        line_h = CELL_H * scale + 4 * scale
        self.y0 = top + max(1, len(self.rows)) * line_h + 2 * scale
        self.y1 = self.y0 + height
        return self.y1

    def frame(self, cv, t0, t1, xticks):
        self.cv, self.t0, self.t1 = cv, t0, t1 if t1 > t0 else t0 + 1.0
        s = self.scale
        line_h = CELL_H * s + 4 * s
        cv.text(self.x0, self.header_y, self.title, INK, s)
        for i, row in enumerate(self.rows):
            y = self.header_y + i * line_h
            mid = y + text_height(s) // 2
            for x, name, colour, dash in row:
                for k in range(s + 1):   # a swatch 2 px (or scale + 1) thick
                    cv.line(x, mid - s // 2 + k, x + 14 * s - 1, mid - s // 2 + k, colour,
                            dash * s)
                cv.text(x + 14 * s + 4 * s, y, name, INK, s)
        for v, _ in self.yticks:
            _, y = self.xy(self.t0, v)
            if self.y0 < round(y) < self.y1:
                cv.line(self.x0 + 1, y, self.x1 - 1, y, GRID)
        for t in xticks:
            x, _ = self.xy(t, self.lo)
            if self.x0 < round(x) < self.x1:
                cv.line(x, self.y0 + 1, x, self.y1 - 1, GRID)
            cv.line(x, self.y1 + 1, x, self.y1 + 4 * s, TICK)
        cv.rect(self.x0, self.y0, self.x1, self.y1, FRAME)
        for v, label in self.yticks:
            _, y = self.xy(self.t0, v)
            cv.line(self.x0 - 4 * s, y, self.x0 - 1, y, TICK)
            cv.text(self.x0 - 6 * s - text_width(label, s),
                    int(round(y)) - text_height(s) // 2, label, INK, s)

    def xy(self, t, v):
        v = min(max(v, self.lo), self.hi)
        x = self.x0 + (t - self.t0) / (self.t1 - self.t0) * (self.x1 - self.x0)
        y = self.y1 - (v - self.lo) / (self.hi - self.lo) * (self.y1 - self.y0)
        return x, y

    def series(self, ts, vs, c):
        pts = [self.xy(t, v) for t, v in zip(ts, vs)]
        for (xa, ya), (xb, yb) in zip(pts, pts[1:]):
            self.cv.line(xa, ya, xb, yb, c)
        if len(pts) == 1:
            self.cv.dot(int(pts[0][0]), int(pts[0][1]), c)

    def hline(self, v, c, dash=4):
        x0, y = self.xy(self.t0, v)
        x1, _ = self.xy(self.t1, v)
        self.cv.line(x0, y, x1, y, c, dash)


def option(argv, name, default):
    if name in argv:
        i = argv.index(name)
        if i + 1 < len(argv):
            value = argv[i + 1]
            del argv[i:i + 2]
            return int(value)
    return default


def main(argv):
    argv = list(argv[1:])
    try:
        width = option(argv, "--width", 900)
        scale = option(argv, "--text-scale", 1)
    except ValueError:
        width, scale = 0, 0
    args = [a for a in argv if not a.startswith("--")]
    if len(args) != 2 or len(args) != len(argv) or width < 200 or scale not in (1, 2):
        sys.stderr.write("usage: plot_profile.py RECORDING.json OUT.png [--width PX] "
                         "[--text-scale 1|2]\n")
        return 2
    with open(args[0]) as f:
        doc = json.load(f)
    s = doc.get("samples", [])
    if not s:
        sys.stderr.write("plot_profile.py: %s: no samples\n" % args[0])
        return 1
    ts = [x["t"] for x in s]
    t0, t1 = ts[0], ts[-1]
    span = t1 - t0
    rel = [t - t0 for t in ts]
    peak = max(x["load_peak"] for x in s)
    vmax = max(max(x["voices_real"], x["voices_virtual"]) for x in s)
    names = []
    for x in s:
        for b in x["buses"]:
            if b["name"] not in names:
                names.append(b["name"])

    load_hi = max(1.2, peak * 1.1)
    step = nice_step(load_hi, 4)
    load = Panel("callback load (x period)", 0.0, load_hi,
                 [(v, tick_label(v, step)) for v in ticks(0.0, load_hi, step)],
                 [("mean", PALETTE[0], 0), ("longest", PALETTE[1], 0),
                  ("deadline", DEADLINE, 3), ("p99", P99, 0)])
    voices_hi = max(1.0, vmax * 1.1)
    step = max(1.0, nice_step(voices_hi, 4))
    voices = Panel("voices", 0.0, voices_hi,
                   [(v, tick_label(v, step)) for v in ticks(0.0, voices_hi, step)],
                   [("real", PALETTE[2], 0), ("virtual", PALETTE[3], 0)])
    levels = Panel("bus levels (dBFS)", -60.0, 0.0, [(-60.0, "-60"), (-30.0, "-30"), (0.0, "0")],
                   [(n, PALETTE[i % len(PALETTE)], 0) for i, n in enumerate(names)] +
                   [("master peak", MASTER, 0)])
    panels = (load, voices, levels)

    tstep = nice_step(span if span > 0 else 1.0, 6)
    xticks = ticks(0.0, span if span > 0 else 1.0, tstep)
    pad = 8 * scale
    label_w = max(text_width(label, scale) for p in panels for _, label in p.yticks)
    x0 = pad + label_w + 6 * scale
    x1 = width - pad - text_width(tick_label(xticks[-1], tstep), scale) // 2 - 1
    ph = 180
    title = "heliod profile: %s, %d samples, %.2f s" % (os.path.basename(args[0]), len(s), span)
    while text_width(title, scale + 1) > width - 2 * pad and len(title) > 4:
        title = title[:-4] + "..."   # too long for the width: cut the end
    y = pad + text_height(scale + 1) + 10 * scale
    for p in panels:
        y = p.layout(x0, x1, y, ph, scale) + 10 * scale
    label_y = levels.y1 + 6 * scale
    height = label_y + 2 * (CELL_H * scale + 4 * scale) + pad
    cv = Canvas(width, height)
    cv.text(pad, pad, title, INK, scale + 1)
    for p in panels:
        p.frame(cv, 0.0, span, xticks)

    load.hline(1.0, DEADLINE, dash=6)
    load.series(rel, [x["load_p99"] for x in s], P99)
    load.series(rel, [x["load_peak"] for x in s], PALETTE[1])
    load.series(rel, [x["load_now"] for x in s], PALETTE[0])

    voices.series(rel, [x["voices_real"] for x in s], PALETTE[2])
    voices.series(rel, [x["voices_virtual"] for x in s], PALETTE[3])

    for i, name in enumerate(names):
        pts = [(t, b["rms_db"]) for t, x in zip(rel, s) for b in x["buses"] if b["name"] == name]
        levels.series([p[0] for p in pts], [p[1] for p in pts], PALETTE[i % len(PALETTE)])
    levels.series(rel, [x["master_peak_db"] for x in s], MASTER)

    for t in xticks:
        label = tick_label(t, tstep)
        x, _ = levels.xy(t, 0.0)
        lx = int(round(x)) - text_width(label, scale) // 2
        cv.text(min(max(lx, 0), width - text_width(label, scale)), label_y, label, INK, scale)
    unit = "time (s)"
    cv.text(x1 - text_width(unit, scale), label_y + CELL_H * scale + 4 * scale, unit, INK, scale)

    with open(args[1], "wb") as f:
        f.write(cv.png())
    print("plot_profile: %d samples over %.2f s, load peak %.3f, voices max %d, buses %s -> %s"
          % (len(s), span, peak, vmax, ",".join(names), args[1]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
