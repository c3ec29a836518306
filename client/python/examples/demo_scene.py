#!/usr/bin/env python3
"""demo_scene.py - the demo scene of scripts/demo.sh, played from Python.

    PYTHONPATH=client/python client/python/examples/demo_scene.py [--socket PATH] [--seconds S]

Writes its own sounds (a wind-like ambience, two bells, a drone, a click)
with the standard library's wave module, loads them (the click uploaded over
the socket), and plays: the ambience looping on a bus of its own with an eq,
a drone on an emitter circling the listener in 3D, a bell cue (two
variations, shuffled, a little random pitch) and clicks panned around, and
now and then a chord whose three notes a bundle starts in the same audio
block, while a PROFILE subscription prints the engine's load and voices
once a second. Everything goes through heliod.Client: no libheliod, no
heliodctl.
"""
import argparse
import math
import os
import random
import struct
import sys
import tempfile
import time
import wave

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import heliod  # noqa: E402

RATE = 48000


def write_wav(path, seconds, fn):
    with wave.open(path, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(RATE)
        n = int(seconds * RATE)
        w.writeframes(b"".join(struct.pack("<h", int(32767 * max(-1.0, min(1.0, fn(i / RATE)))))
                               for i in range(n)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--socket")
    ap.add_argument("--seconds", type=float, default=8.0)
    a = ap.parse_args()
    rnd = random.Random(7)
    tmp = tempfile.mkdtemp(prefix="heliod-demo-")
    write_wav(os.path.join(tmp, "ambience.wav"), 2.0, lambda t: 0.2 * (rnd.random() * 2 - 1))
    write_wav(os.path.join(tmp, "bell.wav"), 1.0,
              lambda t: 0.5 * math.exp(-4 * t) * math.sin(2 * math.pi * 880 * t))
    write_wav(os.path.join(tmp, "bell2.wav"), 1.0,
              lambda t: 0.4 * math.exp(-3 * t) * math.sin(2 * math.pi * 660 * t))
    write_wav(os.path.join(tmp, "drone.wav"), 1.0,
              lambda t: 0.3 * math.sin(2 * math.pi * 110 * t) + 0.1 * math.sin(2 * math.pi * 220 * t))
    write_wav(os.path.join(tmp, "click.wav"), 0.05, lambda t: 0.6 * math.exp(-200 * t))
    with heliod.Client(a.socket, "demo-scene") as c:
        for s in ("ambience", "bell", "bell2", "drone"):
            c.load(s, os.path.join(tmp, s + ".wav"))
        with open(os.path.join(tmp, "click.wav"), "rb") as f:
            c.load_memory("click", f.read())  # as a game without the daemon's filesystem would
        c.listener(pos=(0, 0, 0), forward=(0, 0, -1), up=(0, 1, 0))
        c.bus_create("amb", parent="music")
        c.fx_add("amb", "eq", type="lowshelf", freq=300, gain=-6)
        c.play("ambience", loop=True, gain_db=-6, bus="amb", fade_in_ms=300)
        c.cue_define("bells", ["bell", "bell2"], pick="shuffle", pitch_rand_cents=30,
                     spatial=True, max_instances=4, overflow="steal-quietest")
        c.emitter_create("drone", pos=(4, 0, 0))
        c.play("drone", loop=True, emitter="drone", pos=(4, 0, 0), max_distance=40,
               fade_in_ms=200)
        c.subscribe(heliod.SUB_PROFILE, profile_hz=1)
        start = time.monotonic()
        step = 0
        while time.monotonic() - start < a.seconds:
            t = time.monotonic() - start
            c.emitter_set("drone", pos=(4 * math.cos(t), 0, -4 * math.sin(t)), ramp_ms=100,
                          noreply=True)
            if step % 10 == 5:
                c.play("bells", pos=(rnd.uniform(-4, 4), 0, -2), pitch=rnd.choice((1.0, 1.5)))
            if step % 10 == 0:
                c.play("click", pan=rnd.uniform(-1, 1))
            if step % 20 == 15:
                with c.bundle():  # a chord: three notes started in the same audio block
                    for pitch in (1.0, 1.25, 1.5):
                        c.play("bell", pitch=pitch, gain_db=-9)
            for e in c.events(timeout=0.1, duration=0.1):
                if e.type == "profile":
                    print("t=%4.1fs load now %5.1f%% p99 %5.1f%%  voices %d real %d virtual"
                          % (t, 100 * e.load_now, 100 * e.load_p99, e.voices_real,
                             e.voices_virtual))
            step += 1
        c.emitter_destroy("drone", fade_ms=500)
        c.stop_all(fade_ms=500)
    return 0


if __name__ == "__main__":
    sys.exit(main())
