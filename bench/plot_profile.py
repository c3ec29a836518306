#!/usr/bin/env python3
"""plot_profile.py - draws a `heliodctl profile` recording as a PNG.

    bench/plot_profile.py prof.json prof.png [--width 900]

Three panels, time on the x axis (the recording's span):
  1. callback load: the window's mean (blue) and longest callback (orange)
     against the deadline (red line at 1.0 = the period) and the p99 since
     start (grey); the y axis runs 0..max(1.2, the highest peak);
  2. voices: real (green) and virtual (purple), 0..the most seen;
  3. bus levels: each bus's rms in dBFS (-60..0), one colour per bus, the
     master's peak in black.
Standard library only (json, zlib, struct): the PNG is written by hand, so
the plot needs nothing installed beyond python3. Prints one line of figures
(samples, load peak, voices max) so a script can check what it drew.
"""
import json
import struct
import sys
import zlib

PALETTE = [(31, 119, 180), (255, 127, 14), (44, 160, 44), (148, 103, 189),
           (140, 86, 75), (227, 119, 194), (23, 190, 207), (188, 189, 34)]


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

    def png(self):
        raw = b"".join(b"\x00" + bytes(self.px[y * self.w * 3:(y + 1) * self.w * 3])
                       for y in range(self.h))

        def chunk(kind, data):
            body = kind + data
            return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

        ihdr = struct.pack(">IIBBBBB", self.w, self.h, 8, 2, 0, 0, 0)
        return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) +
                chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


class Panel:
    """A plot area: maps (t, v) to pixels, v in [lo, hi]."""

    def __init__(self, cv, top, height, t0, t1, lo, hi, margin=10):
        self.cv, self.x0, self.x1 = cv, margin, cv.w - margin
        self.y0, self.y1 = top, top + height
        self.t0, self.t1 = t0, t1 if t1 > t0 else t0 + 1.0
        self.lo, self.hi = lo, hi if hi > lo else lo + 1.0
        cv.rect(self.x0, self.y0, self.x1, self.y1, (160, 160, 160))

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


def main(argv):
    args = [a for a in argv[1:] if not a.startswith("--")]
    width = 900
    if "--width" in argv:
        width = int(argv[argv.index("--width") + 1])
        args.remove(str(width))
    if len(args) != 2:
        sys.stderr.write("usage: plot_profile.py RECORDING.json OUT.png [--width PX]\n")
        return 2
    with open(args[0]) as f:
        doc = json.load(f)
    s = doc.get("samples", [])
    if not s:
        sys.stderr.write("plot_profile.py: %s: no samples\n" % args[0])
        return 1
    ts = [x["t"] for x in s]
    t0, t1 = ts[0], ts[-1]
    peak = max(x["load_peak"] for x in s)
    vmax = max(max(x["voices_real"], x["voices_virtual"]) for x in s)
    ph = 180
    cv = Canvas(width, 3 * ph + 40)

    load = Panel(cv, 10, ph, t0, t1, 0.0, max(1.2, peak * 1.1))
    load.hline(1.0, (214, 39, 40), dash=6)  # the deadline
    load.series(ts, [x["load_p99"] for x in s], (150, 150, 150))
    load.series(ts, [x["load_peak"] for x in s], PALETTE[1])
    load.series(ts, [x["load_now"] for x in s], PALETTE[0])

    voices = Panel(cv, 20 + ph, ph, t0, t1, 0.0, max(1.0, vmax * 1.1))
    voices.series(ts, [x["voices_real"] for x in s], PALETTE[2])
    voices.series(ts, [x["voices_virtual"] for x in s], PALETTE[3])

    levels = Panel(cv, 30 + 2 * ph, ph, t0, t1, -60.0, 0.0)
    names = []
    for x in s:
        for b in x["buses"]:
            if b["name"] not in names:
                names.append(b["name"])
    for i, name in enumerate(names):
        pts = [(x["t"], b["rms_db"]) for x in s for b in x["buses"] if b["name"] == name]
        levels.series([p[0] for p in pts], [p[1] for p in pts], PALETTE[i % len(PALETTE)])
    levels.series(ts, [x["master_peak_db"] for x in s], (0, 0, 0))

    with open(args[1], "wb") as f:
        f.write(cv.png())
    print("plot_profile: %d samples over %.2f s, load peak %.3f, voices max %d, buses %s -> %s"
          % (len(s), t1 - t0, peak, vmax, ",".join(names), args[1]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
