#!/usr/bin/env python3
"""layered_music.py - vertical layering driven by one "intensity" value.

    PYTHONPATH=client/python client/python/examples/layered_music.py [--socket PATH] [--seconds S]

Writes three stems of one loop (a pulse, a bass line, a lead) and a
stinger, and a cue sheet: a game parameter `intensity` (0..1), the pulse's
cue with a tempo map (240 BPM 4/4: a bar a second), the two other stems'
cues each binding its gain to `intensity` through its own curve (the bass
comes in over [0, 0.5], the lead over [0.5, 1]), and a [music layers]
section whose state `play` is the pulse with the two stems as its layers.
One MUSIC starts all three on the same engine frame (sample-locked, in the
daemon); the pulse's BAR events (SUB_MUSIC) then drive the mix: on every
bar the intensity moves on (up, then down) with one PARAM scheduled on the
next bar's frame, and each layer's gain follows its curve. Every other bar
a stinger lands on the next bar (play on="bar", of=the pulse). Prints one
line per bar; closing the connection fades the music out.
"""
import argparse
import math
import os
import struct
import sys
import tempfile
import wave

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import heliod  # noqa: E402

RATE = 48000
BPM = 240
BAR_S = 4 * 60.0 / BPM  # one bar
LOOP_S = 4 * BAR_S      # the stems loop over four bars
STEMS = ("lm_pulse", "lm_bass", "lm_lead")


def write_wav(path, seconds, fn):
    with wave.open(path, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(RATE)
        n = int(round(seconds * RATE))
        w.writeframes(b"".join(struct.pack("<h", int(32767 * max(-1.0, min(1.0, fn(i / RATE)))))
                               for i in range(n)))


def pulse(t):
    beat = 60.0 / BPM
    x = t % beat
    return 0.5 * math.exp(-x * 40) * math.sin(2 * math.pi * 60 * x)


def bass(t):
    notes = (55.0, 55.0, 65.4, 49.0)
    f = notes[int(t / BAR_S) % 4]
    return 0.25 * math.sin(2 * math.pi * f * t)


def lead(t):
    notes = (440.0, 523.3, 587.3, 659.3, 587.3, 523.3, 440.0, 392.0)
    f = notes[int(t / (BAR_S / 2)) % 8]
    return 0.12 * math.sin(2 * math.pi * f * t) * (0.6 + 0.4 * math.sin(2 * math.pi * 3 * t))


def layer_gains_db(intensity):
    """What the cue sheet's curves give each stem at this intensity (the
    daemon applies them; printed here): linear in dB from -60 to 0 over the
    layer's half of the range."""
    out = [0.0]
    for i in range(1, len(STEMS)):
        x = min(1.0, max(0.0, intensity * (len(STEMS) - 1) - (i - 1)))
        out.append(-60.0 + 60.0 * x)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--socket", default=None)
    ap.add_argument("--seconds", type=float, default=16.0)
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="heliod-layers-")
    for name, fn in zip(STEMS, (pulse, bass, lead)):
        write_wav(os.path.join(tmp, name + ".wav"), LOOP_S, fn)
    write_wav(os.path.join(tmp, "lm_sting.wav"), 0.3,
              lambda t: 0.4 * math.sin(2 * math.pi * 880 * t) * math.exp(-t * 12))
    sheet = os.path.join(tmp, "layers.cues")
    with open(sheet, "w") as f:
        f.write("[parameter intensity] 0 1 0 0\n"  # NAME MIN MAX DEFAULT SEEK
                "[cue lm_base]\nsound = lm_pulse\nloop = yes\nbus = music\n"
                "tempo = %d 4/4\n" % BPM)
        for i, s in enumerate(STEMS[1:]):
            f.write("[cue %s_layer]\nsound = %s\nloop = yes\nbus = music\n"
                    "bind = intensity gain %.1f:-60 %.1f:0\n" % (s, s, 0.5 * i, 0.5 * (i + 1)))
        f.write("[music layers]\nstate = play lm_base\n")
        for s in STEMS[1:]:
            f.write("layer = play %s_layer\n" % s)
    # a cue sheet (tempo maps live there) is loaded by a control client
    with heliod.Client(a.socket, "layered-music", control=True) as c:
        for name in STEMS + ("lm_sting",):
            c.load(name, os.path.join(tmp, name + ".wav"))
        c.cues_load(sheet)
        c.subscribe(heliod.SUB_MUSIC | heliod.SUB_ENDED)
        rate = c.clock()["rate"]
        m = c.music("layers", "play")  # the pulse and its two layers, on one frame
        base, start = m["voice"], m["frame"]
        print("music layers: voice %d and its %d layers start on frame %d at %d Hz"
              % (base, len(STEMS) - 1, start, rate))
        bar_frames = int(round(BAR_S * rate))
        steps = (0.0, 0.35, 0.7, 1.0, 1.0, 0.7, 0.35, 0.0)
        for ev in c.events(duration=a.seconds):
            if ev.type != "bar" or ev.voice != base:
                continue
            intensity = steps[ev.bar % len(steps)]
            # from the next bar on: one parameter, every layer through its curve
            c.param_set("intensity", intensity, at=ev.frame + bar_frames)
            line = "bar %d frame %d intensity %.2f gains %s" % (
                ev.bar, ev.frame, intensity,
                " ".join("%.1f" % g for g in layer_gains_db(intensity)))
            if ev.bar % 2 == 1:
                c.play("lm_sting", on="bar", of=base, fade_in_ms=0)
                line += " + stinger on the next bar"
            print(line, flush=True)
    for f in os.listdir(tmp):
        os.remove(os.path.join(tmp, f))
    os.rmdir(tmp)
    return 0


if __name__ == "__main__":
    sys.exit(main())
