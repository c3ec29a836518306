#!/usr/bin/env python3
"""test_plot_profile.py - bench/plot_profile.py draws its labels.

    python3 test_plot_profile.py PATH/TO/plot_profile.py

Runs the plotter on a small synthetic recording of the shape `heliodctl
profile --out` writes (40 samples over 3.9 s, load peak 0.75, up to 14 real
voices, buses sfx and music), checks its one line of figures, then decodes
the PNG itself (chunks and CRCs, zlib, every PNG row filter) and looks for
the text pixel by pixel: each string is rendered with the plotter's own
5x7 font and must appear exactly (ink dark, the gaps light) in its place:
  - the title above the first panel, at twice the label size;
  - each panel's title between the panels;
  - the y tick labels in the left margin, centred on their value: "1.0" on
    the red deadline line, "0" on the load panel's floor, "-60", "-30" and
    "0" on the dB panel's floor, middle and top, with a tick mark;
  - a legend entry for every line, its swatch of the line's colour at its
    left (mean, longest, deadline, p99; real, virtual; sfx, music, master
    peak);
  - the time labels 0..3 under the last panel at their seconds, and
    "time (s)".
A label that is not drawn (1.5, above the load axis) must not be found, so
the search cannot pass on its own. Standard library only.
"""
import importlib.util
import json
import math
import os
import re
import struct
import subprocess
import sys
import tempfile
import zlib

FRAME = (160, 160, 160)
DEADLINE = (214, 39, 40)
BLUE, ORANGE, GREEN, PURPLE = (31, 119, 180), (255, 127, 14), (44, 160, 44), (148, 103, 189)
P99, BLACK = (150, 150, 150), (0, 0, 0)

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL: " + what)
    return cond


def recording(path):
    samples = []
    for i in range(40):
        samples.append({
            "t": 100.0 + i * 0.1, "period_us": 5333.333, "callbacks": 19,
            "load_now": 0.2 + 0.05 * math.sin(i / 3.0), "load_peak": 0.75 if i == 20 else 0.45,
            "load_p99": 0.5, "load_max": 0.75, "hist": [1, 2, 3, 4, 0, 0, 0, 0],
            "xruns": 0, "underruns": 0, "voices_real": min(i, 14),
            "voices_virtual": max(0, i - 30), "decode_load": 0.01, "streams": 0, "stream": [],
            "master_peak_db": -6.0 - 3.0 * math.sin(i / 5.0), "master_rms_db": -12.0,
            "buses": [
                {"name": "sfx", "peak_db": -8.0, "hold_db": -6.0,
                 "rms_db": -20.0 + 5.0 * math.sin(i / 4.0), "real": 1, "virtual": 0},
                {"name": "music", "peak_db": -20.0, "hold_db": -18.0, "rms_db": -35.0,
                 "real": 1, "virtual": 0}]})
    with open(path, "w") as f:
        f.write('{"heliod_profile":1,"hz":10.000,"samples":[\n')
        f.write(",\n".join(json.dumps(s, separators=(",", ":")) for s in samples))
        f.write("\n]}\n")


def decode_png(path):
    """(width, height, rows of RGB bytes) of an 8-bit RGB, non-interlaced PNG."""
    with open(path, "rb") as f:
        data = f.read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, ihdr = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        crc, = struct.unpack(">I", data[pos + 8 + n:pos + 12 + n])
        assert zlib.crc32(kind + body) == crc, "bad CRC in %r" % kind
        if kind == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
        pos += 12 + n
    w, h, depth, ctype, _, _, interlace = ihdr
    assert (depth, ctype, interlace) == (8, 2, 0), "expected 8-bit RGB, not interlaced"
    raw, stride, rows, prev = zlib.decompress(idat), w * 3, [], bytearray(w * 3)
    assert len(raw) == h * (stride + 1), "IDAT: %d bytes, not %d" % (len(raw), h * (stride + 1))
    for y in range(h):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        for i in range(stride):
            a = line[i - 3] if i >= 3 else 0
            b = prev[i]
            c = prev[i - 3] if i >= 3 else 0
            if kind == 1:
                line[i] = (line[i] + a) & 255
            elif kind == 2:
                line[i] = (line[i] + b) & 255
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pred) & 255
            else:
                assert kind == 0, "unknown filter %d" % kind
        rows.append(bytes(line))
        prev = line
    return w, h, rows


class Image:
    def __init__(self, path, font):
        self.w, self.h, self.rows = decode_png(path)
        self.font = font
        # '#' where a pixel is dark enough to be text (the text is (30,30,30))
        self.dark = [bytes(35 if max(r[x * 3:x * 3 + 3]) < 80 else 46 for x in range(self.w))
                     for r in self.rows]

    def px(self, x, y):
        return tuple(self.rows[y][x * 3:x * 3 + 3])

    def render(self, s, scale):
        """s in the plotter's font as rows of '#'/'.', one blank column between letters."""
        out = []
        for r in range(7):
            line = ""
            for k, ch in enumerate(s):
                assert ch in self.font.FONT, "no glyph for %r" % ch
                g = self.font.FONT[ch].split()[r]
                line += "".join(c * scale for c in g) + ("." * scale if k + 1 < len(s) else "")
            out += [line] * scale
        return [row.encode() for row in out]

    def find(self, s, scale=1, box=None):
        """Top-left corners where s is drawn exactly, inside box (x0, y0, x1, y1)."""
        pat = self.render(s, scale)
        pw, ph = len(pat[0]), len(pat)
        x0, y0, x1, y1 = box or (0, 0, self.w, self.h)
        anchor = max(range(ph), key=lambda r: pat[r].count(b"#"))
        hits = []
        for y in range(max(0, y0), min(self.h, y1) - ph + 1):
            row = self.dark[y + anchor]
            x = row.find(pat[anchor], max(0, x0))
            while x != -1 and x + pw <= min(self.w, x1):
                if all(self.dark[y + r][x:x + pw] == pat[r] for r in range(ph)):
                    hits.append((x, y))
                x = row.find(pat[anchor], x + 1)
        return hits

    def frame_rows(self):
        """The rows where a panel outline runs across (lines drawn on it hide some)."""
        return [y for y in range(self.h)
                if sum(1 for x in range(self.w) if self.px(x, y) == FRAME) > self.w // 10]

    def colour_rows(self, colour, y0, y1, least):
        return [y for y in range(y0, y1)
                if sum(1 for x in range(self.w) if self.px(x, y) == colour) >= least]


def one(img, s, scale, box, what):
    hits = img.find(s, scale, box)
    check(len(hits) == 1, "%s: %r drawn %d times in %s, want once" % (what, s, len(hits), box))
    return hits[0] if hits else None


def main(argv):
    plot = argv[1] if len(argv) > 1 else os.environ.get("PLOT_PROFILE")
    sys.dont_write_bytecode = True   # no __pycache__ in the source tree
    spec = importlib.util.spec_from_file_location("plot_profile", plot)
    font = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(font)
    if not check(isinstance(getattr(font, "FONT", None), dict), "the plotter defines FONT"):
        return 1
    glyphs = {c: font.FONT[c] for c in "01.-"}
    check(len(set(glyphs.values())) == 4 and all("#" in g for g in glyphs.values()),
          "the font's 0 1 . - are distinct, non-blank glyphs")

    with tempfile.TemporaryDirectory() as tmp:
        src, png = os.path.join(tmp, "prof.json"), os.path.join(tmp, "prof.png")
        recording(src)
        run = subprocess.run([sys.executable, plot, src, png], capture_output=True, text=True)
        check(run.returncode == 0, "plot_profile.py exits 0 (stderr: %s)" % run.stderr.strip())
        m = re.fullmatch(r"plot_profile: (\d+) samples over ([\d.]+) s, load peak ([\d.]+), "
                         r"voices max (\d+), buses (\S*) -> (.+)\n", run.stdout)
        check(m is not None, "the figures line keeps its format: %r" % run.stdout)
        if m:
            check(m.groups() == ("40", "3.90", "0.750", "14", "sfx,music", png),
                  "the figures: %r" % (m.groups(),))
        img = Image(png, font)

        edges = img.frame_rows()
        check(len(edges) == 6, "three framed panels (rows %s)" % edges)
        if len(edges) != 6:
            return 1
        (l_top, l_bot), (v_top, v_bot), (b_top, b_bot) = zip(edges[0::2], edges[1::2])
        fy = edges[0]
        x0 = next(x for x in range(img.w) if img.px(x, fy) == FRAME)
        x1 = max(x for x in range(img.w) if img.px(x, fy) == FRAME)

        # the title, at twice the label size, above the first panel
        one(img, "heliod profile: prof.json, 40 samples, 3.90 s", 2, (0, 0, img.w, l_top),
            "title")
        check(not img.find("heliod profile", 1), "the title is not at label size")

        # the panel titles, each over its own panel
        one(img, "callback load (x period)", 1, (0, 0, img.w, l_top), "load title")
        one(img, "voices", 1, (0, l_bot, img.w, v_top), "voices title")
        one(img, "bus levels (dBFS)", 1, (0, v_bot, img.w, b_top), "levels title")

        # y tick labels in the margin, centred on their values, with tick marks
        def ylabel(s, y_value, what):
            hit = one(img, s, 1, (0, y_value - 6, x0, y_value + 6), what)
            if hit:
                x, y = hit
                check(x0 - 12 <= x + len(img.render(s, 1)[0]) <= x0 - 2,
                      "%s: %r ends just left of the axis (x %d, axis %d)" % (what, s, x, x0))
                check(abs(y + 3 - y_value) <= 1,
                      "%s: %r centred on y %d (drawn at %d)" % (what, s, y_value, y + 3))
                check(img.px(x0 - 2, y_value) != (255, 255, 255), "%s: a tick mark" % what)

        red = img.colour_rows(DEADLINE, l_top + 1, l_bot, (x1 - x0) // 4)
        check(len(red) == 1, "one deadline line in the load panel (rows %s)" % red)
        if red:
            ylabel("1.0", red[0], "load deadline tick")
            check(abs(red[0] - (l_bot - (l_bot - l_top) / 1.2)) <= 1,
                  "the deadline at 1.0 of 0..1.2")
        ylabel("0.5", round(l_bot - (l_bot - l_top) * 0.5 / 1.2), "load 0.5 tick")
        ylabel("0", l_bot, "load floor tick")
        check(not img.find("1.5", 1), "no 1.5 tick: the load axis ends at 1.2")
        ylabel("0", v_bot, "voices floor tick")
        ylabel("10", round(v_bot - (v_bot - v_top) * 10 / 15.4), "voices 10 tick")
        ylabel("-60", b_bot, "dB floor tick")
        ylabel("-30", round((b_top + b_bot) / 2), "dB -30 tick")
        ylabel("0", b_top, "dB top tick")

        # legends: each name once in its panel's header, its colour at its left
        def legend(name, colour, top, bot):
            hit = one(img, name, 1, (x0, top, img.w, bot), "legend")
            if hit:
                x, y = hit
                near = [(xx, yy) for xx in range(max(0, x - 24), x) for yy in range(y, y + 7)
                        if img.px(xx, yy) == colour]
                check(len(near) >= 6, "legend: %r has a %s swatch at its left" % (name, colour))

        header = (l_top - 20, l_top)
        for name, colour in [("mean", BLUE), ("longest", ORANGE), ("deadline", DEADLINE),
                             ("p99", P99)]:
            legend(name, colour, *header)
        for name, colour in [("real", GREEN), ("virtual", PURPLE)]:
            legend(name, colour, l_bot, v_top)
        for name, colour in [("sfx", BLUE), ("music", ORANGE), ("master peak", BLACK)]:
            legend(name, colour, v_bot, b_top)

        # time labels under the last panel, centred on their seconds
        for sec in range(4):
            hit = one(img, str(sec), 1, (0, b_bot + 4, img.w, img.h), "time label")
            if hit:
                want = x0 + sec / 3.9 * (x1 - x0)
                check(abs(hit[0] + 2 - want) <= 3,
                      "time label %d at x %.0f (drawn at %d)" % (sec, want, hit[0] + 2))
        one(img, "time (s)", 1, (0, b_bot, img.w, img.h), "time axis")

        # the same at --text-scale 2: labels at twice the size
        run = subprocess.run([sys.executable, plot, src, png, "--text-scale", "2"],
                             capture_output=True, text=True)
        check(run.returncode == 0, "--text-scale 2 exits 0")
        big = Image(png, font)
        check(len(big.find("1.0", 2)) == 1 and not big.find("1.0", 1), "--text-scale 2: 1.0 at 2x")
        check(len(big.find("heliod profile", 3)) == 1, "--text-scale 2: the title at 3x")

    print("%s: %d failures" % (os.path.basename(argv[0]), len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
