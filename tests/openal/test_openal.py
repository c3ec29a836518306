#!/usr/bin/env python3
"""heliod's OpenAL library (client/openal) under programs nobody here wrote.

Each test starts its own heliod (null driver, --record), runs a program with
the library first in LD_LIBRARY_PATH, stops the daemon and reads the
recording; where it says so, the same program runs on the system's OpenAL
Soft (its wave backend, or its loopback device) for the reference.
Environment (meson sets it): HELIOD_BIN, OPENAL_DIR (the built library),
OPENAL_NAMES (the 93 OpenAL 1.1 names). A missing third-party program is a
skip (exit 77 when every test skipped)."""
import math, os, shutil, signal, struct, subprocess, sys, tempfile, time, unittest

HERE = os.path.dirname(os.path.abspath(__file__))
HELIOD = os.environ.get("HELIOD_BIN", "heliod")
OAL_DIR = os.environ.get("OPENAL_DIR", "")
NAMES = os.environ.get("OPENAL_NAMES", "")


def read_wav(path):
    """(rate, channels, [frames of floats]) of a PCM16/float32 WAV."""
    with open(path, "rb") as f:
        data = f.read()
    assert data[:4] == b"RIFF" and data[8:12] == b"WAVE", "not a WAV"
    pos, fmt, body = 12, None, None
    while pos + 8 <= len(data):
        cid, size = data[pos:pos + 4], struct.unpack("<I", data[pos + 4:pos + 8])[0]
        chunk = data[pos + 8:pos + 8 + size]
        if cid == b"fmt ":
            fmt = struct.unpack("<HHIIHH", chunk[:16])
        elif cid == b"data":
            body = chunk if size != 0xFFFFFFFF and size else data[pos + 8:]
        pos += 8 + size + (size & 1)
        if body is not None:
            break
    tag, ch, rate, _, _, bits = fmt
    if tag == 0xFFFE:
        tag = 3 if bits == 32 and b"\x03\x00\x00\x00\x00\x00\x10\x00" in data[:80] else 1
    if tag == 3 and bits == 32:
        n = len(body) // 4
        s = struct.unpack("<%df" % n, body[:n * 4])
    elif bits == 16:
        n = len(body) // 2
        s = [v / 32768.0 for v in struct.unpack("<%dh" % n, body[:n * 2])]
    else:
        raise AssertionError("unsupported WAV %r" % (fmt,))
    return rate, ch, [s[i:i + ch] for i in range(0, len(s) - ch + 1, ch)]


class Daemon:
    def __init__(self, extra=()):
        self.dir = tempfile.mkdtemp(prefix="hl-openal-")
        self.sock = os.path.join(self.dir, "heliod.sock")
        self.rec = os.path.join(self.dir, "out.wav")
        self.log = open(os.path.join(self.dir, "heliod.log"), "w")
        self.proc = subprocess.Popen([HELIOD, "--socket", self.sock, "--driver", "null",
                                      "--record", self.rec, "--log-level", "warn", *extra],
                                     stderr=self.log)
        t0 = time.monotonic()
        while not os.path.exists(self.sock):
            if time.monotonic() - t0 > 10 or self.proc.poll() is not None:
                raise RuntimeError("heliod did not start")
            time.sleep(0.01)

    def env(self):
        e = dict(os.environ)
        e["HELIOD_SOCKET"] = self.sock
        e["LD_LIBRARY_PATH"] = OAL_DIR + (":" + e["LD_LIBRARY_PATH"] if e.get("LD_LIBRARY_PATH") else "")
        return e

    def run(self, args, timeout=60, **kw):
        return subprocess.run(args, env=self.env(), capture_output=True, text=True, timeout=timeout, **kw)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            self.proc.wait(timeout=20)
        self.log.close()
        return read_wav(self.rec)

    def cleanup(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        if not self.log.closed:
            self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)


def soft_env(tmp, out_wav):
    """OpenAL Soft writing to a WAV file (its wave backend)."""
    conf = os.path.join(tmp, "alsoft.conf")
    with open(conf, "w") as f:
        f.write("[general]\ndrivers=wave\nchannels=stereo\nfrequency=48000\n[wave]\nfile=%s\n" % out_wav)
    e = dict(os.environ)
    e["ALSOFT_CONF"] = conf
    e.pop("LD_LIBRARY_PATH", None)
    e.pop("LD_PRELOAD", None)
    return e


def active(frames, thr=1e-4):
    """[first, last] frame whose louder channel is above thr, or None."""
    idx = [i for i, f in enumerate(frames) if max(abs(v) for v in f) > thr]
    return (idx[0], idx[-1]) if idx else None


def rms(frames, ch):
    return math.sqrt(sum(f[ch] * f[ch] for f in frames) / max(1, len(frames)))


def db(x):
    return 20 * math.log10(max(x, 1e-12))


def sign_segments(rec):
    """The recording's runs of one sign (scenes alternate +DC and -DC)."""
    segs, cur, sign = [], [], 0
    for f in rec:
        s = 1 if f[0] + f[1] > 1e-6 else -1 if f[0] + f[1] < -1e-6 else 0
        if s != sign:
            if sign and len(cur) > 16:
                segs.append(cur)
            cur, sign = [], s
        if s:
            cur.append(f)
    if sign and len(cur) > 16:
        segs.append(cur)
    return segs


class OpenAL(unittest.TestCase):
    def setUp(self):
        self.d = Daemon()

    def tearDown(self):
        self.d.cleanup()

    def test_exports(self):
        """The library exports the 93 OpenAL 1.1 functions (and no heliod_*)."""
        lib = os.path.join(OAL_DIR, "libopenal.so.1")
        out = subprocess.run(["nm", "-D", "--defined-only", lib], capture_output=True, text=True).stdout
        syms = {l.split()[-1] for l in out.splitlines() if l.strip()}
        with open(NAMES) as f:
            names = {l.strip() for l in f if l.strip()}
        self.assertEqual(len(names), 93)
        self.assertEqual(sorted(names - syms), [])
        self.assertEqual(sorted(s for s in syms if not s.startswith("al")), [])
        self.assertIn("alcSetThreadContext", syms)
        soname = subprocess.run(["readelf", "-d", lib], capture_output=True, text=True).stdout
        self.assertIn("[libopenal.so.1]", soname)

    def test_openal_info(self):
        if not shutil.which("openal-info"):
            self.skipTest("openal-info not installed")
        env = self.d.env()  # through the wrapper: it sets the library path itself
        env.pop("LD_LIBRARY_PATH")
        env["HELIOD_OPENAL_DIR"] = OAL_DIR
        r = subprocess.run(["sh", os.path.join(OAL_DIR, "heliod-openal"), "openal-info"], env=env,
                           capture_output=True, text=True, timeout=30)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("Default playback device: heliod", r.stdout)
        self.assertIn('Info for device "heliod"', r.stdout)
        self.assertIn("OpenAL vendor string: heliod", r.stdout)
        self.assertIn("ALC_EXT_thread_local_context", r.stdout)
        self.assertIn("AL_EXT_FLOAT32", r.stdout)
        self.assertNotIn("ALC_EXT_EFX", r.stdout)  # never advertised unless implemented
        self.assertIn("EFX not available", r.stdout)

    def test_alut_hello_world(self):
        """ALUT's hello world plays whole, AL_PLAYING at once, AL_STOPPED at the end;
        the recording matches OpenAL Soft's (wave backend) in length and level."""
        r = self.d.run([sys.executable, os.path.join(HERE, "alut_hello.py")])
        if "libalut" in r.stderr and "cannot open" in r.stderr:
            self.skipTest("libalut0 not installed")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        kv = dict(p.split("=") for p in r.stdout.split())
        self.assertEqual(kv["first"], "0x1012")  # AL_PLAYING right after alSourcePlay
        self.assertEqual(kv["final"], "0x1014")
        self.assertEqual(kv["err"], "0x0")
        frames, rate = int(kv["frames"]), int(kv["rate"])
        expect_s = frames / rate
        # AL_STOPPED not before the sound's length has played (nor long after:
        # the state is local; the upper margin allows for a loaded machine)
        self.assertGreater(float(kv["elapsed"]), expect_s - 0.02, r.stdout)
        self.assertLess(float(kv["elapsed"]), expect_s + 0.5, r.stdout)
        erate, ech, rec = self.d.stop()
        span = active(rec)
        self.assertIsNotNone(span)
        ours = rec[span[0]:span[1] + 1]
        # the reference: the same program on OpenAL Soft's wave backend
        tmp = tempfile.mkdtemp(prefix="hl-alsoft-")
        try:
            ref_wav = os.path.join(tmp, "soft.wav")
            rr = subprocess.run([sys.executable, os.path.join(HERE, "alut_hello.py")],
                                env=soft_env(tmp, ref_wav), capture_output=True, text=True, timeout=60)
            self.assertEqual(rr.returncode, 0, rr.stdout + rr.stderr)
            _, _, ref = read_wav(ref_wav)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        rspan = active(ref)
        ref = ref[rspan[0]:rspan[1] + 1]
        self.assertLess(abs(len(ours) / erate - len(ref) / 48000.0), 0.02)
        self.assertLess(abs(len(ours) / erate - expect_s), 0.02)
        for ch in (0, 1):  # a centred mono source: OpenAL Soft's level on each channel
            self.assertLess(abs(db(rms(ours, ch)) - db(rms(ref, ch))), 0.5,
                            "channel %d: %.2f dB vs %.2f dB" % (ch, db(rms(ours, ch)), db(rms(ref, ch))))

    def test_3d_oracle(self):
        """18 distances x 3 models, 8 cone angles, a moved and turned listener,
        elevation, relative sources: heliod's gains per channel are OpenAL Soft's
        (its loopback device) within 0.5 dB."""
        soft = subprocess.run([sys.executable, os.path.join(HERE, "scene3d.py"), "soft"],
                              env=soft_env(self.d.dir, os.path.join(self.d.dir, "unused.wav")),
                              capture_output=True, text=True, timeout=60)
        self.assertEqual(soft.returncode, 0, soft.stderr)
        ref = [tuple(map(float, l.split()[1:])) for l in soft.stdout.splitlines()]
        r = self.d.run([sys.executable, os.path.join(HERE, "scene3d.py"), "play"])
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("err=0x0", r.stdout)
        _, _, rec = self.d.stop()
        # segments: runs of one sign (the scenes alternate +DC and -DC)
        segs, cur, sign = [], [], 0
        for f in rec:
            s = 1 if f[0] + f[1] > 1e-6 else -1 if f[0] + f[1] < -1e-6 else 0
            if s != sign:
                if sign and len(cur) > 16:
                    segs.append(cur)
                cur, sign = [], s
            if s:
                cur.append(f)
        if sign and len(cur) > 16:
            segs.append(cur)
        self.assertEqual(len(segs), len(ref))
        amp = 8192 / 32768.0
        worst = 0.0
        for i, (seg, (rl, rr_)) in enumerate(zip(segs, ref)):
            mid = seg[len(seg) // 4: 3 * len(seg) // 4]
            l = abs(sum(f[0] for f in mid) / len(mid)) / amp
            rgt = abs(sum(f[1] for f in mid) / len(mid)) / amp
            for got, want, name in ((l, rl, "L"), (rgt, rr_, "R")):
                if want < 1e-3:
                    self.assertLess(got, 2e-3, "scene %d %s" % (i, name))
                    continue
                err = abs(db(got) - db(want))
                worst = max(worst, err)
                self.assertLess(err, 0.5, "scene %d %s: %.4f vs OpenAL Soft %.4f" % (i, name, got, want))
        print("3d oracle: %d scenes, worst %.3f dB" % (len(ref), worst))

    def pyglet_python(self):
        for py in (sys.executable, "/usr/bin/python3"):
            if os.path.exists(py) and subprocess.run([py, "-c", "import pyglet"],
                                                     capture_output=True).returncode == 0:
                return py
        self.skipTest("python3-pyglet not installed")

    def test_pyglet(self):
        """pyglet picks its OpenAL driver on heliod's library and plays a WAV
        static, streamed, and as a positional source moved left to right."""
        py = self.pyglet_python()
        wav = os.path.join(self.d.dir, "tone.wav")
        import wave
        amp = 8000
        with wave.open(wav, "wb") as w:
            w.setnchannels(1), w.setsampwidth(2), w.setframerate(48000)
            w.writeframes(b"".join(struct.pack("<h", int(amp * math.sin(2 * math.pi * 440 * i / 48000)))
                                   for i in range(24000)))
        r = self.d.run([py, os.path.join(HERE, "pyglet_play.py"), wav])
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("driver=pyglet.media.drivers.openal", r.stdout)  # not the silent fallback
        self.assertIn("done", r.stdout)
        rate, _, rec = self.d.stop()
        span = active(rec)
        self.assertIsNotNone(span)
        # the static play first: a centred mono source at OpenAL Soft's -4.5 dB per channel
        first = rec[span[0] + rate // 20: span[0] + rate * 4 // 10]
        want = amp / 32768.0 / math.sqrt(2) * 0.59566
        for ch in (0, 1):
            self.assertLess(abs(db(rms(first, ch)) - db(want)), 0.5, "static channel %d" % ch)
        # the positional part last: left first, right at the end
        last = rec[span[1] - rate * 45 // 100: span[1] + 1]
        early, late = last[:rate // 10], last[-rate // 10:]
        self.assertGreater(rms(early, 0), 2 * rms(early, 1))
        self.assertGreater(rms(late, 1), 2 * rms(late, 0))
        # the streamed part: more sound than the static play alone
        total = sum(1 for f in rec if max(abs(v) for v in f) > 1e-4) / rate
        self.assertGreater(total, 1.2)

    def test_gstreamer_openalsink(self):
        """gst-launch-1.0 audiotestsrc num-buffers=100 ! audioconvert ! openalsink streams
        through buffer queues: the tone, level and length match OpenAL Soft's."""
        if not shutil.which("gst-launch-1.0"):
            self.skipTest("gstreamer1.0-tools not installed")
        pipe = ["gst-launch-1.0", "-q", "audiotestsrc", "num-buffers=100", "!", "audioconvert", "!",
                "openalsink"]
        if subprocess.run(["gst-inspect-1.0", "openalsink"], capture_output=True).returncode != 0:
            self.skipTest("gstreamer1.0-plugins-bad (openalsink) not installed")
        r = self.d.run(pipe)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        rate, _, rec = self.d.stop()
        tmp = tempfile.mkdtemp(prefix="hl-alsoft-")
        try:
            ref_wav = os.path.join(tmp, "soft.wav")
            rr = subprocess.run(pipe, env=soft_env(tmp, ref_wav), capture_output=True, text=True,
                                timeout=60)
            self.assertEqual(rr.returncode, 0, rr.stderr)
            rrate, _, ref = read_wav(ref_wav)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

        def measure(frames, fr):
            sp = active(frames)
            self.assertIsNotNone(sp)
            seg = frames[sp[0]:sp[1] + 1]
            mid = seg[len(seg) // 10: len(seg) * 9 // 10]
            zc = sum(1 for a, b in zip(mid, mid[1:]) if (a[0] < 0) != (b[0] < 0))
            return len(seg) / fr, zc / 2 / (len(mid) / fr), rms(mid, 0), rms(mid, 1)

        ours, theirs = measure(rec, rate), measure(ref, rrate)
        self.assertLess(abs(ours[0] - theirs[0]), 0.1, "length %.3f s vs %.3f s" % (ours[0], theirs[0]))
        self.assertLess(abs(ours[1] - 440.0), 440 * 0.01, "tone %.1f Hz" % ours[1])
        self.assertLess(abs(theirs[1] - 440.0), 440 * 0.01)
        for ch in (2, 3):
            self.assertLess(abs(db(ours[ch]) - db(theirs[ch])), 0.5,
                            "level %.2f dB vs %.2f dB" % (db(ours[ch]), db(theirs[ch])))

    def test_mcformats(self):
        """AL_EXT_MCFORMATS: each channel of REAR, QUAD, 5.1, 6.1 and 7.1 in 8,
        16 and float, downmixed to heliod's stereo: left and right levels are
        OpenAL Soft's stereo loopback's within 0.1 dB (the library's matrix
        is OpenAL Soft's, rounded to 4 digits); AL_CHANNELS/BITS/SIZE and
        AL_BYTE_OFFSET speak of the program's layout."""
        soft = subprocess.run([sys.executable, os.path.join(HERE, "mcformats.py"), "soft"],
                              env=soft_env(self.d.dir, os.path.join(self.d.dir, "unused.wav")),
                              capture_output=True, text=True, timeout=60)
        self.assertEqual(soft.returncode, 0, soft.stderr)
        ref = [tuple(map(float, l.split()[1:])) for l in soft.stdout.splitlines()]
        r = self.d.run([sys.executable, os.path.join(HERE, "mcformats.py"), "play"])
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("AL_EXT_MCFORMATS=1", r.stdout)
        self.assertIn("byte_offset_ok=1", r.stdout)
        self.assertIn("err=0x0", r.stdout)
        _, _, rec = self.d.stop()
        segs = sign_segments(rec)
        self.assertEqual(len(segs), len(ref))
        worst = 0.0
        for i, (seg, (rl, rr_)) in enumerate(zip(segs, ref)):
            mid = seg[len(seg) // 4: 3 * len(seg) // 4]
            l = abs(sum(f[0] for f in mid) / len(mid)) / 0.25
            rgt = abs(sum(f[1] for f in mid) / len(mid)) / 0.25
            for got, want, name in ((l, rl, "L"), (rgt, rr_, "R")):
                if want < 1e-3:
                    self.assertLess(got, 2e-3, "scene %d %s" % (i, name))
                    continue
                err = abs(db(got) - db(want))
                worst = max(worst, err)
                self.assertLess(err, 0.1, "scene %d %s: %.4f vs OpenAL Soft %.4f" % (i, name, got, want))
        print("mcformats: %d channels, worst %.3f dB from OpenAL Soft" % (len(ref), worst))

    def test_3d_oracle_doppler(self):
        """Doppler (source or listener moving, factor, speed of sound): heliod's
        pitch is OpenAL Soft's (its loopback device) within 0.2 %."""
        soft = subprocess.run([sys.executable, os.path.join(HERE, "scene3d.py"), "doppler-soft"],
                              env=soft_env(self.d.dir, os.path.join(self.d.dir, "unused.wav")),
                              capture_output=True, text=True, timeout=60)
        self.assertEqual(soft.returncode, 0, soft.stderr)
        ref = [float(l.split()[1]) for l in soft.stdout.splitlines()]
        r = self.d.run([sys.executable, os.path.join(HERE, "scene3d.py"), "doppler-play"])
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("err=0x0", r.stdout)
        rate, _, rec = self.d.stop()
        sys.path.insert(0, HERE)
        import scene3d
        segs, cur, quiet = [], [], 0
        for f in rec:  # segments: sound between gaps of 10 ms of silence
            if abs(f[0]) > 1e-6 or abs(f[1]) > 1e-6:
                cur.append(f[0])
                quiet = 0
            else:
                quiet += 1
                if quiet >= rate // 100 and cur:
                    segs.append(cur)
                    cur = []
                elif cur:
                    cur.append(f[0])
        if cur:
            segs.append(cur)
        self.assertEqual(len(segs), len(ref))
        for i, (seg, want) in enumerate(zip(segs, ref)):
            got = scene3d.freq_of(seg[len(seg) // 10: len(seg) * 9 // 10], rate)
            self.assertLess(abs(got / want - 1), 0.002, "scene %d: %.2f Hz vs OpenAL Soft %.2f Hz" % (i, got, want))
        self.assertGreater(ref[0], 1030)  # the scenes do shift
        self.assertLess(ref[1], 970)


if __name__ == "__main__":
    unittest.main(verbosity=2)
