#!/usr/bin/env python3
"""layered_music.py - vertical layering driven by one "intensity" value.

    PYTHONPATH=client/python client/python/examples/layered_music.py [--socket PATH] [--seconds S]

Writes three stems of one loop (a pulse, a bass line, a lead) and a
stinger, and a cue sheet whose base stem carries a tempo map (240 BPM 4/4:
a bar a second). The three stems start in one bundle on the same engine
frame, so they stay sample-locked; the base stem's BAR events (SUB_MUSIC)
then drive the mix: on every bar the intensity moves on (up, then down),
and each layer's gain follows it from the next bar's frame on (SET at that
frame with a short ramp). Every other bar a stinger lands on the next bar
(play on="bar", of=the base stem). Prints one line per bar.
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
    """The base always plays; layer i (1, 2) comes in over intensity
    [(i-1)/2, i/2]: silent (-60 dB) below, full (0 dB) above."""
    out = [0.0]
    for i in range(1, len(STEMS)):
        x = min(1.0, max(0.0, intensity * (len(STEMS) - 1) - (i - 1)))
        out.append(-60.0 if x <= 0.0 else max(-60.0, 20.0 * math.log10(x)))
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
        f.write("[cue lm_base]\nsound = lm_pulse\nloop = yes\nbus = music\n"
                "tempo = %d 4/4\n" % BPM)
        for s in STEMS[1:]:
            f.write("[cue %s_layer]\nsound = %s\nloop = yes\nbus = music\n" % (s, s))
    # a cue sheet (tempo maps live there) is loaded by a control client
    with heliod.Client(a.socket, "layered-music", control=True) as c:
        for name in STEMS + ("lm_sting",):
            c.load(name, os.path.join(tmp, name + ".wav"))
        c.cues_load(sheet)
        c.subscribe(heliod.SUB_MUSIC | heliod.SUB_ENDED)
        clk = c.clock()
        start = clk["frame"] + int(0.1 * clk["rate"])  # the stems' common first frame
        gains = layer_gains_db(0.0)
        with c.bundle():
            p = [c.play("lm_base", at=start, gain_db=gains[0], fade_in_ms=0)]
            for s, g in zip(STEMS[1:], gains[1:]):
                p.append(c.play(s + "_layer", at=start, gain_db=g, fade_in_ms=0))
        voices = [x.result() for x in p]
        print("stems %s start on frame %d at %d Hz" % (", ".join(str(v) for v in voices), start,
                                                       clk["rate"]))
        bar_frames = int(round(BAR_S * clk["rate"]))
        steps = (0.0, 0.35, 0.7, 1.0, 1.0, 0.7, 0.35, 0.0)
        for ev in c.events(duration=a.seconds):
            if ev.type != "bar" or ev.voice != voices[0]:
                continue
            intensity = steps[ev.bar % len(steps)]
            gains = layer_gains_db(intensity)
            at = ev.frame + bar_frames  # from the next bar on, all layers at once
            for v, g in zip(voices, gains):
                c.set(v, gain_db=g, ramp_ms=50.0, at=at)
            line = "bar %d frame %d intensity %.2f gains %s" % (
                ev.bar, ev.frame, intensity, " ".join("%.1f" % g for g in gains))
            if ev.bar % 2 == 1:
                c.play("lm_sting", on="bar", of=voices[0], fade_in_ms=0)
                line += " + stinger on the next bar"
            print(line, flush=True)
        for v in voices:
            c.stop(v, fade_ms=200)
    for f in os.listdir(tmp):
        os.remove(os.path.join(tmp, f))
    os.rmdir(tmp)
    return 0


if __name__ == "__main__":
    sys.exit(main())
