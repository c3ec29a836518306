#!/usr/bin/env python3
"""test_heliod_py.py - the pure-Python client (client/python/heliod) against
the real daemon (HELIOD_BIN, null driver, a private socket): handshake,
load/sounds, play/voices/set/listener/stop, stats, events (ENDED, METER,
PROFILE), errors with the protocol's codes, the asyncio variant, a daemon
that goes away, and the example demo scene. Sounds are written here with
the standard library's wave module and decoded by the daemon (libsndfile).
"""
import asyncio
import math
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import unittest
import wave

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(SRC, "client", "python"))
import heliod  # noqa: E402


def write_sine(path, seconds=1.0, freq=1000.0, amp=0.5, rate=48000):
    with wave.open(path, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(b"".join(struct.pack("<h", int(32767 * amp * math.sin(2 * math.pi * freq * i / rate)))
                               for i in range(int(seconds * rate))))


class Daemon:
    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="heliod-py-")
        os.chmod(self.dir, 0o700)
        self.sock = os.path.join(self.dir, "heliod.sock")
        self.log = open(os.path.join(self.dir, "log"), "w")
        self.proc = subprocess.Popen([os.environ.get("HELIOD_BIN", "heliod"), "--socket", self.sock,
                                      "--driver", "null", "--log-level", "warn"], stderr=self.log)
        end = time.monotonic() + 10
        while not os.path.exists(self.sock):
            if time.monotonic() > end or self.proc.poll() is not None:
                raise RuntimeError("heliod did not start")
            time.sleep(0.02)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(10)
        return self.proc.returncode

    def cleanup(self):
        self.stop()
        self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)


class ClientTest(unittest.TestCase):
    def setUp(self):
        self.d = Daemon()
        self.wav = os.path.join(self.d.dir, "tone.wav")
        write_sine(self.wav)

    def tearDown(self):
        self.assertEqual(self.d.stop(), 0)
        self.d.cleanup()

    def test_blocking_calls(self):
        with heliod.Client(self.d.sock, "pytest") as c:
            self.assertEqual(c.info["version"], 1)
            self.assertEqual(c.info["rate"], 48000)
            self.assertGreater(c.info["client_id"], 0)
            self.assertGreater(c.ping(), 0)
            info = c.load("tone", self.wav)
            self.assertEqual((info["name"], info["frames"], info["channels"]), ("tone", 48000, 1))
            self.assertEqual([s["name"] for s in c.sounds()], ["tone"])
            v = c.play("tone", loop=True, bus="music", gain_db=-6, pos=(1, 0, -2), priority=5)
            self.assertNotEqual(v, 0)
            vs = c.voices()
            self.assertEqual(len(vs), 1)
            self.assertEqual((vs[0]["voice"], vs[0]["sound"], vs[0]["bus"]), (v, "tone", "music"))
            self.assertEqual(vs[0]["priority"], 5)
            self.assertAlmostEqual(vs[0]["gain_db"], -6.0, places=3)
            self.assertEqual(vs[0]["state"], "playing")
            c.set(v, pos=(0, 0, -5), gain_db=-12, ramp_ms=0)
            c.listener(pos=(0, 0, 1), forward=(0, 0, -1), up=(0, 1, 0))
            vs = c.voices()
            self.assertEqual(tuple(vs[0]["pos"]), (0.0, 0.0, -5.0))
            self.assertAlmostEqual(vs[0]["gain_db"], -12.0, places=3)
            st = c.stats()
            self.assertEqual(st["voices_real"], 1)
            self.assertEqual(st["rate"], 48000)
            self.assertIn("callback_load_p99", st)
            c.subscribe(heliod.SUB_ENDED)
            c.stop(v, fade_ms=0)
            ended = [e for e in c.events(timeout=2.0) if e.type == "ended"]
            self.assertEqual(len(ended), 1)
            self.assertEqual((ended[0].voice, ended[0].reason), (v, "stopped"))
            self.assertEqual(c.voices(), [])

    def test_errors(self):
        with heliod.Client(self.d.sock) as c:
            with self.assertRaises(heliod.HeliodError) as e:
                c.play("nosuch")
            self.assertEqual((e.exception.code, e.exception.name), (-5, "ENOSOUND"))
            self.assertTrue(e.exception.message)
            with self.assertRaises(heliod.HeliodError) as e:
                c.load("bad name", self.wav)
            self.assertIn(e.exception.name, ("ENAME", "EINVAL"))
            with self.assertRaises(heliod.HeliodError) as e:
                c.load("missing", os.path.join(self.d.dir, "missing.wav"))
            self.assertEqual(e.exception.name, "EFILE")
            c.load("tone", self.wav)
            with self.assertRaises(heliod.HeliodError) as e:
                c.play("tone", pitch=10.0)
            self.assertEqual(e.exception.name, "EINVAL")
            with self.assertRaises(heliod.HeliodError) as e:
                c.subscribe(heliod.SUB_PROFILE, profile_hz=500)
            self.assertEqual(e.exception.name, "EINVAL")
            self.assertGreater(c.ping(), 0)  # the connection survived every refusal
        with self.assertRaises(heliod.HeliodError) as e:
            heliod.Client(os.path.join(self.d.dir, "none.sock"))
        self.assertEqual(e.exception.name, "ECONNECT")

    def test_meter_and_profile_events(self):
        with heliod.Client(self.d.sock) as c:
            c.load("tone", self.wav)
            c.play("tone", loop=True, bus="music")
            c.subscribe(heliod.SUB_METER | heliod.SUB_PROFILE, meter_hz=20, profile_hz=20)
            got = {"meter": [], "profile": []}
            for e in c.events(timeout=1.0, duration=1.0):
                got[e.type].append(e)
            self.assertGreaterEqual(len(got["profile"]), 14)
            self.assertGreaterEqual(len(got["meter"]), 14)
            p = got["profile"][-1]
            self.assertEqual(p.voices_real, 1)
            self.assertEqual(p.buses["music"]["real"], 1)
            self.assertEqual(sum(p.hist), p.callbacks)
            self.assertGreater(p.load_now, 0.0)
            self.assertAlmostEqual(p.period_us, 256e6 / 48000, places=1)
            m = got["meter"][-1]
            # mono 0.5 sine panned centre: about -9 dBFS on each side
            self.assertLess(abs(max(m.buses["music"]["peak_db"]) + 9.0), 1.5)

    def test_async(self):
        async def run():
            c = await heliod.AsyncClient.connect(self.d.sock, "pyasync")
            self.assertEqual(c.info["rate"], 48000)
            await c.load("tone", self.wav)
            await c.subscribe(heliod.SUB_ENDED)
            # concurrent requests, replies matched by id
            v1, v2, stats = await asyncio.gather(c.play("tone", loop=True), c.play("tone", bus="ui"),
                                                 c.stats())
            self.assertNotEqual(v1, v2)
            self.assertIn("voices_real", stats)
            await c.stop(v1, fade_ms=0)
            e = await c.next_event(timeout=2.0)
            while e is not None and e.voice != v1:
                e = await c.next_event(timeout=2.0)
            self.assertIsNotNone(e)
            self.assertEqual((e.type, e.reason), ("ended", "stopped"))
            await c.close()

        asyncio.run(run())

    def test_daemon_goes_away(self):
        c = heliod.Client(self.d.sock)
        self.assertEqual(self.d.stop(), 0)
        with self.assertRaises((heliod.HeliodError, OSError)) as e:
            for _ in range(10):
                c.ping()
                time.sleep(0.05)
        if isinstance(e.exception, heliod.HeliodError):
            self.assertEqual(e.exception.name, "ECLOSED")
        c.close()

    def test_demo_scene_example(self):
        ex = os.path.join(SRC, "client", "python", "examples", "demo_scene.py")
        out = subprocess.run([sys.executable, ex, "--socket", self.d.sock, "--seconds", "2.5"],
                             capture_output=True, text=True, timeout=60)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("voices", out.stdout)
        self.assertIn("real", out.stdout)


if __name__ == "__main__":
    unittest.main(verbosity=2)
