#!/usr/bin/env python3
"""test_heliod_py.py - the pure-Python client (client/python/heliod) against
the real daemon (HELIOD_BIN, null driver, a private socket): handshake,
load/sounds, play/voices/set/listener/stop, stats, events (ENDED, STARTED,
VIRTUAL, METER, BANK, ZONE_TICK, PROFILE, ERROR), errors with the protocol's
codes; cues, categories and per-play overrides, emitters, pause/resume/seek
by voice, bus, category and all; buses, effects, ducking and reverb zones;
banks, world zones and uploads (LOAD_DATA); devices; the clock, scheduled
plays and bundles; the asyncio variant, a daemon that goes away, and the
example demo scene. Sounds are written here with the standard library's
wave module and decoded by the daemon (libsndfile).
"""
import asyncio
import io
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


def sine_wav(seconds=1.0, freq=1000.0, amp=0.5, rate=48000):
    """A mono 16-bit WAV file's bytes."""
    out = io.BytesIO()
    with wave.open(out, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(b"".join(struct.pack("<h", int(32767 * amp * math.sin(2 * math.pi * freq * i / rate)))
                               for i in range(int(seconds * rate))))
    return out.getvalue()


def write_sine(path, seconds=1.0, freq=1000.0, amp=0.5, rate=48000):
    with open(path, "wb") as f:
        f.write(sine_wav(seconds, freq, amp, rate))


def wait_for(fn, timeout=3.0, step=0.02):
    """Polls fn() until it returns something true; returns it (or the last value)."""
    end = time.monotonic() + timeout
    v = fn()
    while not v and time.monotonic() < end:
        time.sleep(step)
        v = fn()
    return v


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
            self.assertEqual(c.info["minor"], heliod.PROTO_MINOR)  # HELLO negotiated 1.1
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

    def test_stream(self):
        """A client-fed stream: s16 written, consumed, underrun, ended, played out."""
        with heliod.Client(self.d.sock, "pystream") as c:
            self._stream(c)

    def _stream(self, c):
        c.subscribe(heliod.SUB_ENDED | heliod.SUB_STREAM)
        s = c.stream(rate=24000, channels=1, format="s16", frames=4096, fade_in_ms=0)
        self.assertIsInstance(s, heliod.Stream)
        self.assertEqual(s.frames, 4096)
        pcm = b"".join(struct.pack("<h", int(8000 * math.sin(i * 0.1))) for i in range(2400))
        self.assertEqual(s.write(pcm), 2400)  # 0.1 s at 24 kHz, then it starves
        self.assertTrue(wait_for(lambda: s.underruns >= 1))
        self.assertEqual(s.consumed, 2400)
        self.assertIsNone(s.ended())
        # VOICES names it after its client and places it at what it consumed (0.1 s at 24 kHz)
        vs = [v for v in c.voices() if v["voice"] == s.voice]
        self.assertEqual(vs[0]["sound"], "stream:pystream")
        self.assertAlmostEqual(vs[0]["position_s"], 0.1, places=6)
        sent = 0
        while sent < 4800:  # it recovers
            sent += s.write(pcm[: (4800 - sent) * 2 if 4800 - sent < 2400 else len(pcm)])
            self.assertTrue(s.wait(2.0))
        s.end()
        self.assertEqual(s.write(pcm), 0)
        self.assertEqual(wait_for(s.ended), "finished")
        self.assertEqual(s.consumed, 7200)
        evs = list(c.events(timeout=0.5, duration=1.0))
        self.assertTrue(any(e.type == "stream" and e.voice == s.voice for e in evs))
        ended = [e for e in evs if e.type == "ended" and e.voice == s.voice]
        self.assertEqual([e.reason for e in ended], ["finished"])
        s.close()
        # refused: what the daemon checks (a LOOP flag), named
        with self.assertRaises(heliod.HeliodError) as cm:
            c.stream(loop=True)
        self.assertEqual(cm.exception.name, "EINVAL")
        # closed while it plays: it stops
        s = c.stream(channels=2, format="f32", frames=8192)
        self.assertEqual(s.write(bytes(8 * 8192)), 8192)
        s.close()
        self.assertTrue(wait_for(lambda: c.stats()["voices_active"] == 0))

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

    def test_compressed_pack(self):
        """LOAD compressed from a byte range of a pack file (protocol 1.1)."""
        pack = os.path.join(self.d.dir, "game.pak")
        with open(self.wav, "rb") as f:
            wav = f.read()
        with open(pack, "wb") as f:
            f.write(b"\x00" * 100 + wav)
        with heliod.Client(self.d.sock) as c:
            info = c.load("tone", pack, compressed=True, offset=100, length=len(wav))
            self.assertEqual((info["frames"], info["channels"]), (48000, 1))
            self.assertTrue(info["flags"] & heliod.LOAD_STREAM)  # decoded while it plays
            c.stop(c.play("tone"), fade_ms=0)
            with self.assertRaises(heliod.HeliodError) as e:
                c.load("far", pack, offset=100 + len(wav), length=1)
            self.assertEqual(e.exception.name, "EINVAL")
            self.assertIn("outside", e.exception.message)

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

    def errname(self, fn, *a, **kw):
        """The HeliodError name fn(*a, **kw) raises (fails the test if none)."""
        with self.assertRaises(heliod.HeliodError) as e:
            fn(*a, **kw)
        self.assertTrue(e.exception.message)
        return e.exception.name

    def voice(self, c, v):
        return next(x for x in c.voices() if x["voice"] == v)

    def test_cues_categories_overrides(self):
        # loading a cue sheet at run time is a control client's
        with heliod.Client(self.d.sock, control=True) as c:
            c.load("t1", self.wav)
            c.load("t2", self.wav)
            c.category_define("feet", max_instances=2, overflow="refuse", fade_out_ms=40,
                              fade_curve="log")
            c.cue_define("step", ["t1", "t2"], pick="shuffle", category="feet", bus="music",
                         gain_db=-3, loop=True, priority=5, max_instances=8,
                         overflow="steal-quietest", min_interval_ms=0)
            v1, v2 = c.play("step"), c.play("step")
            x = self.voice(c, v1)
            self.assertEqual((x["cue"], x["category"], x["bus"], x["priority"]),
                             ("step", "feet", "music", 5))
            self.assertIn(x["sound"], ("t1", "t2"))
            self.assertNotEqual(self.voice(c, v2)["sound"], x["sound"])  # shuffle
            self.assertEqual(self.errname(c.play, "step"), "ECATLIMIT")
            # per-play overrides: the fields given replace the cue's, the others are its own
            c.cue_define("ovr", "t1", bus="music", priority=3, loop=True)
            vo = c.play("ovr", bus="ui", priority=9, gain_db=-6)
            vp = c.play("ovr")
            self.assertEqual((self.voice(c, vo)["bus"], self.voice(c, vo)["priority"]), ("ui", 9))
            self.assertEqual((self.voice(c, vp)["bus"], self.voice(c, vp)["priority"]), ("music", 3))
            # the interpolator: a cue's, overridden per play; a bad name is refused locally
            c.cue_define("hq", "t1", interp="sinc", pitch=0.9)
            self.assertTrue(c.play("hq", interp="linear") > 0)
            self.assertEqual(self.errname(c.play, "hq", interp="lanczos"), "EINVAL")
            cues = {e["name"]: e for e in c.cues()}
            self.assertEqual(cues["hq"]["interp"], "sinc")
            self.assertEqual(cues["feet"]["kind"], "category")
            self.assertEqual((cues["feet"]["max_instances"], cues["feet"]["fade_curve"]), (2, "log"))
            st = cues["step"]
            self.assertEqual((st["kind"], st["pick"], st["sounds"], st["overflow"], st["loop"]),
                             ("cue", "shuffle", ["t1", "t2"], "steal-quietest", True))
            self.assertEqual((st["counters"]["plays"], st["counters"]["refused_cat_limit"],
                              st["counters"]["active"]), (2, 1, 2))
            # pause and resume a category, then a bus
            self.assertEqual(c.pause_category("feet"), 2)
            self.assertEqual(self.voice(c, v1)["state"], "paused")
            self.assertEqual(c.resume_category("feet"), 2)
            self.assertEqual(self.voice(c, v1)["state"], "playing")
            self.assertEqual(c.pause_bus("ui"), 1)
            self.assertEqual(self.voice(c, vo)["state"], "paused")
            self.assertEqual(c.resume_bus("ui"), 1)
            self.assertEqual(self.errname(c.pause_category, "nocat"), "ENOCATEGORY")
            # a cue sheet
            sheet = os.path.join(self.d.dir, "cues.ini")
            with open(sheet, "w") as f:
                f.write("[category ui2]\nmax-instances = 3\n[cue click]\nsound = t1, t2\n"
                        "pick = sequence\ncategory = ui2\n")
            self.assertEqual(c.cues_load(sheet), (1, 1))
            click = next(e for e in c.cues() if e["name"] == "click")
            self.assertEqual((click["pick"], click["category"]), ("sequence", "ui2"))
            vc = c.play("click")
            self.assertEqual(self.voice(c, vc)["cue"], "click")
            self.assertEqual(self.errname(c.cues_load, os.path.join(self.d.dir, "none.ini")),
                             "EFILE")
            self.assertEqual(self.errname(c.cue_define, "bad", "t1", overflow="sometimes"),
                             "EINVAL")  # refused here: an enum out of range is a protocol error
            c.cue_define("bad", "nosuch")  # variations are looked up when it plays
            self.assertEqual(self.errname(c.play, "bad"), "ENOSOUND")
            self.assertEqual(self.errname(c.cue_define, "bad", "t1", bus="nobus"), "ENOBUS")
            self.assertGreater(c.ping(), 0)
            # adaptive music: a [music NAME] section, its first state, a
            # transition waiting for its bar (120 BPM: within 2 s), refusals
            with open(sheet, "w") as f:
                f.write("[cue song]\nsound = t1\nloop = yes\ntempo = 120 4/4\n"
                        "[music score]\nstate = a song\nstate = b song\n"
                        "transition = a b bar xfade:50\n")
            c.cues_load(sheet)
            keys = [(k["section"], k["name"], k["key"], k["value"]) for k in c.sheet_keys()]
            self.assertEqual(keys, [("cue", "song", "tempo", "120 4/4"),
                                    ("music", "score", "state", "a song"),
                                    ("music", "score", "state", "b song"),
                                    ("music", "score", "transition",
                                     "a b bar xfade:50:equal-power")])
            first = c.music("score", "a")
            self.assertNotEqual(first["voice"], 0)
            nxt = c.music("score", "b")
            self.assertEqual(nxt["voice"], 0)
            self.assertGreaterEqual(nxt["frame"], first["frame"])  # its next bar: maybe its first
            self.assertLessEqual(nxt["frame"] - first["frame"], 2 * c.info["rate"] + 4096)
            self.assertEqual(self.errname(c.music, "score", "nostate"), "EINVAL")
            self.assertEqual(self.errname(c.music, "nomusic", "a"), "EINVAL")
            self.assertEqual(self.errname(c.music, "score", "bad name"), "ENAME")

    def test_game_parameters(self):
        with heliod.Client(self.d.sock) as c:
            c.load("tone", self.wav)
            c.cue_define("eng", "tone", loop=True)
            c.param_define("rpm", 0, 1, 1, 0)
            c.bind("eng", "rpm", "gain", [(0, -20), (1, 0, "linear")])
            v = c.play("eng")

            def gain():  # the voice's gain once the daemon's next pass applied the binding
                time.sleep(0.1)
                return self.voice(c, v)["gain_db"]
            self.assertAlmostEqual(gain(), 0.0, places=2)
            c.param_set("rpm", 0.5)
            self.assertAlmostEqual(gain(), -10.0, places=2)
            c.set(v, gain_db=-3, ramp_ms=0)  # the binding rides on what SET asks
            self.assertAlmostEqual(gain(), -13.0, places=2)
            c.param_set("rpm", 0.0, voice=v)  # the voice's own value wins
            self.assertAlmostEqual(gain(), -23.0, places=2)
            p = c.params()[0]
            self.assertEqual((p["def"]["name"], p["value"], p["scoped"]), ("rpm", 0.5, 1))
            self.assertEqual(self.errname(c.param_set, "rpm", 2.0), "EINVAL")
            self.assertEqual(self.errname(c.param_set, "nosuch", 0.0), "EINVAL")
            self.assertEqual(self.errname(c.bind, "eng", "rpm", "gain", [(i, 0) for i in range(17)]),
                             "EINVAL")
            c.bind_clear("eng")

    def test_emitters_pause_seek_post(self):
        with heliod.Client(self.d.sock) as c:
            c.load("tone", self.wav)
            c.subscribe(heliod.SUB_ENDED)
            c.emitter_create("car", pos=(5, 0, 0), vel=(0, 0, -1))
            v = c.play("tone", loop=True, emitter="car", pos=(0, 0, 0))
            self.assertEqual(self.voice(c, v)["emitter"], "car")
            c.emitter_set("car", pos=(1, 0, -1))
            self.assertTrue(wait_for(lambda: tuple(self.voice(c, v)["pos"]) == (1.0, 0.0, -1.0)))
            c.emitter_set("car", pos=(2, 0, -2), noreply=True)
            c.sync()
            self.assertTrue(wait_for(lambda: tuple(self.voice(c, v)["pos"]) == (2.0, 0.0, -2.0)))
            self.assertEqual(self.errname(c.emitter_set, "nocar", pos=(0, 0, 0)), "ENOEMITTER")
            self.assertEqual(self.errname(c.emitter_create, "car", pos=(0, 0, 0)), "EEXIST")
            # one voice: pause, resume, seek, the post stage
            w = c.play("tone", loop=True, bus="music")
            c.pause(w)
            self.assertEqual(self.voice(c, w)["state"], "paused")
            c.resume(w)
            self.assertEqual(self.voice(c, w)["state"], "playing")
            c.pause(v)
            c.seek(v, 0.5)
            self.assertAlmostEqual(wait_for(lambda: abs(self.voice(c, v)["position_s"] - 0.5) < 0.01
                                            and self.voice(c, v)["position_s"]), 0.5, places=2)
            c.resume(v)
            c.set(w, lp_hz=800, occlusion=0.5, sends=[("dialog", -6)])
            post = self.voice(c, w)["post"]
            self.assertEqual((post["lp_hz"], post["occlusion"], post["sends"][0]), (800, 0.5, ("dialog", -6)))
            self.assertEqual(c.pause_all(), 2)
            self.assertEqual({x["state"] for x in c.voices()}, {"paused"})
            self.assertEqual(c.resume_all(), 2)
            self.assertEqual(self.errname(c.seek, w, 5.0), "EINVAL")  # past the sound's end
            self.assertEqual(c.emitter_destroy("car", fade_ms=0), 1)
            ended = [e for e in c.events(timeout=1.0) if e.type == "ended" and e.voice == v]
            self.assertEqual([e.reason for e in ended], ["emitter"])
            c.stop(w, fade_ms=0, curve="equal-power")
            # VIRTUAL and REAL: a 3D voice the listener leaves behind, then comes back to
            c.subscribe(heliod.SUB_VIRTUAL)
            far = c.play("tone", loop=True, pos=(0, 0, -2), max_distance=10)
            c.listener(pos=(0, 0, 100))
            ev = [e for e in c.events(timeout=0.5, duration=1.0) if e.voice == far]
            self.assertEqual([(e.type, e.reason) for e in ev], [("virtual", "distance")])
            self.assertEqual(self.voice(c, far)["state"], "virtual")
            c.listener(pos=(0, 0, 0))
            ev = [e for e in c.events(timeout=0.5, duration=1.0) if e.voice == far]
            self.assertEqual([e.type for e in ev], ["real"])
            c.stop(far, fade_ms=0)
            c.subscribe(heliod.SUB_ENDED)
            self.assertEqual(self.errname(c.stop, w), "ENOVOICE")
            # a noreply request that fails: an ERROR event with its request's id
            c.set(w, gain_db=-1, noreply=True)
            c.sync()
            errs = [e for e in c.events(timeout=0.2) if e.type == "error"]
            self.assertEqual([(e.name, e.req_op) for e in errs], [("ENOVOICE", 9)])
            self.assertGreater(errs[0].id, 0)

    def test_graph(self):
        # the whole mix, default buses included: a control client's
        with heliod.Client(self.d.sock, control=True) as c:
            c.load("tone", self.wav)
            c.bus_create("amb", parent="music")
            c.bus_create("rev")
            buses = {b["name"]: b for b in c.buses()}
            self.assertEqual(list(buses)[0], "master")
            self.assertEqual((buses["amb"]["parent"], buses["rev"]["parent"]), ("music", "master"))
            self.assertEqual(self.errname(c.bus_create, "amb"), "EEXIST")
            c.bus_gain("amb", -6)
            c.bus_mute("rev", True)
            c.bus_parent("amb", "sfx")
            c.bus_send("amb", "rev", -12)
            buses = {b["name"]: b for b in c.buses()}
            self.assertEqual((buses["amb"]["parent"], buses["amb"]["gain_db"]), ("sfx", -6.0))
            self.assertTrue(buses["rev"]["mute"])
            self.assertEqual(buses["amb"]["bus_sends"], [("rev", -12.0)])
            self.assertEqual(self.errname(c.bus_parent, "sfx", "amb"), "EINVAL")  # a loop
            # effects
            self.assertEqual(c.fx_add("amb", "eq", type="peak", freq=1000, gain=-6), 0)
            self.assertEqual(c.fx_add("amb", "reverb --preset cave --wet 0.4"), 1)
            self.assertEqual(c.fx_add("amb", "comp", index=0, threshold=-30, ratio=8), 0)
            fx = c.fx_list("amb")
            self.assertEqual([(f["index"], f["kind"]) for f in fx], [(0, "comp"), (1, "eq"), (2, "reverb")])
            self.assertEqual((fx[1]["type"], fx[1]["params"]["freq"], fx[1]["params"]["gain"]),
                             ("peak", 1000.0, -6.0))
            self.assertAlmostEqual(fx[2]["params"]["wet"], 0.4, places=5)
            self.assertEqual(fx[0]["params"]["ratio"], 8.0)
            c.fx_set("amb", 1, "eq", gain=-3, ramp_ms=10)
            self.assertEqual(c.fx_list("amb")[1]["params"]["gain"], -3.0)
            c.fx_remove("amb", 2)
            self.assertEqual(len(c.fx_list("amb")), 2)
            self.assertEqual(c.buses()[[b["name"] for b in c.buses()].index("amb")]["fx"], 2)
            self.assertEqual(self.errname(c.fx_remove, "amb", 5), "ENOFX")
            self.assertEqual(self.errname(c.fx_add, "amb", "eq", q=100), "EINVAL")
            self.assertEqual(self.errname(c.fx_add, "amb", "eq", rt60=1), "EINVAL")
            # ducking
            c.duck("music", "dialog", depth_db=12, threshold_db=-144)
            d = c.ducks()
            self.assertEqual([(x["bus"], x["by"], x["depth_db"]) for x in d], [("music", "dialog", 12.0)])
            c.duck_remove("music", "dialog")
            self.assertEqual(c.ducks(), [])
            self.assertEqual(self.errname(c.duck_remove, "music", "dialog"), "EINVAL")
            # reverb zones
            c.listener(pos=(0, 0, 0))
            c.reverb_zone_set("cave", (0, 0, -2), 10, fade=5, preset="cave")
            z = c.reverb_zones()
            self.assertEqual([(x["name"], x["bus"], x["feed"], x["preset"]) for x in z],
                             [("cave", "cave", "reverb_zones", "cave")])
            self.assertEqual(z[0]["weight"], 1.0)
            self.assertIn("cave", [b["name"] for b in c.buses()])
            c.listener(pos=(0, 0, 100))
            self.assertEqual(c.reverb_zones()[0]["weight"], 0.0)
            c.reverb_zone_remove("cave")
            self.assertEqual(c.reverb_zones(), [])
            # mixer snapshots (protocol 1.1): the blend read back from the fader
            base = [b for b in c.buses() if b["name"] == "amb"][0]["gain_db"]
            c.snapshot_define("pause", priority=5, fade_ms=0)
            c.snapshot_set("pause", "amb", "gain", -12.0)
            c.snapshot_start("pause", intensity=0.5)
            wait_for(lambda: c.snapshots()[0]["state"] == "on")
            s = c.snapshots()[0]
            self.assertEqual((s["name"], s["priority"], s["settings"], s["intensity"]),
                             ("pause", 5, 1, 0.5))
            self.assertAlmostEqual([b for b in c.buses() if b["name"] == "amb"][0]["gain_db"],
                                   base + (-12.0 - base) * 0.5, places=3)
            self.assertEqual(self.errname(c.snapshot_start, "nosuch"), "EINVAL")
            self.assertEqual(self.errname(c.snapshot_set, "pause", "nobus", "gain", 0.0), "ENOBUS")
            c.snapshot_stop("pause", fade_ms=0)
            c.snapshot_remove("pause")
            self.assertEqual(c.snapshots(), [])
            # sound cones (protocol 1.1)
            c.emitter_create("horn", (0, 0, -2))
            self.assertEqual(self.errname(c.cone, (0, 0, 1), 90, 60, emitter="horn"), "EINVAL")
            c.cone((0, 0, 1), 60, 90, 0.5, emitter="horn")
            c.cone((0, 0, 1), 60, 90, 0.5, emitter="horn", outer_lp_hz=2000.0)
            self.assertEqual(self.errname(c.cone, (0, 0, 1), 60, 90, 0.5, emitter="horn",
                                          outer_lp_hz=-1.0), "EINVAL")
            c.listener(pos=(40, 0, 0), index=1)  # several listeners (protocol 1.1)
            self.assertEqual(c.stats()["listeners"], 2)
            c.listener(index=1, weight=0.5)  # the weighted rule
            self.assertEqual(self.errname(c.listener, index=1, weight=1.5), "EINVAL")
            c.listener(index=1, weight="nearest")
            c.listener(index=1, off=True)
            self.assertEqual(c.stats()["listeners"], 1)
            self.assertEqual(self.errname(c.attenuation, [(5, 0), (1, -6)], cue="nosuch"), "EINVAL")
            self.assertEqual(self.errname(c.attenuation, [(1, 0), (5, -6)], cue="nosuch"), "EINVAL")
            c.attenuation([(1, 0), (20, -20)], emitter="horn")  # an emitter's curves
            c.attenuation([(1, 16000), (40, 800)], emitter="horn", kind="lowpass")
            self.assertEqual(self.errname(c.attenuation, [(1, 0)], emitter="nosuch"),
                             "ENOEMITTER")
            c.emitter_destroy("horn")
            self.assertEqual(self.errname(c.cone, (0, 0, 1), 60, 90, 0.5, cue="nosuch"), "EINVAL")
            # a bus in use cannot go
            v = c.play("tone", loop=True, bus="amb")
            c.attenuation([(1, 16000), (40, 800)], voice=v, kind="lowpass")  # distance curves
            c.attenuation([(0, 0), (30, -20)], voice=v, kind="send")
            self.assertEqual(self.errname(c.attenuation, [(1, 5)], voice=v, kind="lowpass"),
                             "EINVAL")
            self.assertEqual(self.errname(c.attenuation, [(1, 0)], voice=v, kind="pitch"),
                             "EINVAL")
            self.assertEqual(self.errname(c.bus_remove, "amb"), "EBUSINUSE")
            c.stop(v, fade_ms=0)

            def removed():
                try:
                    return c.bus_remove("amb") or True
                except heliod.HeliodError as e:  # the voice's anti-click fade still runs
                    self.assertEqual(e.name, "EBUSINUSE")
            self.assertTrue(wait_for(removed))
            self.assertNotIn("amb", [b["name"] for b in c.buses()])
            self.assertEqual(self.errname(c.bus_gain, "amb", 0), "ENOBUS")

    def write_bank(self, name, sounds):
        path = os.path.join(self.d.dir, name + ".ini")
        with open(path, "w") as f:
            f.write("name = %s\n" % name)
            for s in sounds:
                write_sine(os.path.join(self.d.dir, s + ".wav"), seconds=0.5)
                f.write("[sound %s]\npath = %s.wav\n" % (s, s))
        return path

    def test_assets(self):
        with heliod.Client(self.d.sock) as c:
            c.subscribe(heliod.SUB_BANK | heliod.SUB_ZONES | heliod.SUB_ENDED)
            info = c.bank_load(self.write_bank("lvl", ["b1", "b2"]))
            self.assertEqual((info["name"], info["sounds"]), ("lvl", 2))
            self.assertIn(info["state"], ("loading", "loaded"))
            states = [e.bank["state"] for e in c.events(timeout=1.0, duration=1.0)
                      if e.type == "bank" and e.name == "lvl"]
            self.assertEqual(states[-1], "loaded")
            b = c.banks()
            self.assertEqual([(x["name"], x["state"], x["done"], x["failed"]) for x in b],
                             [("lvl", "loaded", 2, 0)])
            self.assertGreater(b[0]["bytes"], 0)
            self.assertNotEqual(c.play("b1"), 0)
            pinned = c.load("pinned", self.wav, pin=True)
            self.assertTrue(pinned["flags"] & heliod.LOAD_PIN)
            self.assertEqual(self.errname(c.bank_load, os.path.join(self.d.dir, "none.ini")), "EFILE")
            c.bank_unload("lvl")
            self.assertTrue(wait_for(lambda: not c.banks()))
            self.assertEqual(self.errname(c.bank_unload, "lvl"), "ENOSOUND")
            # a world zone loads when the listener comes near
            c.zone_add("forest", self.write_bank("forest", ["f1"]), (0, 0, -50), 10)
            z = c.zones()
            self.assertEqual([(x["name"], x["state"], x["radius"]) for x in z], [("forest", "out", 10.0)])
            self.assertEqual(self.errname(c.zone_add, "forest", z[0]["bank"], (0, 0, 0), 1), "EEXIST")
            c.listener(pos=(0, 0, -48))
            self.assertTrue(wait_for(lambda: c.zones()[0]["state"] == "loaded"))
            self.assertLess(c.zones()[0]["distance"], 3.0)
            ticks = [e.report for e in c.events(timeout=0.3, duration=0.3) if e.type == "zone_tick"]
            self.assertTrue(ticks and all(t.startswith("tick ") for t in ticks))
            c.zone_remove("forest")
            self.assertEqual(c.zones(), [])
            c.subscribe(heliod.SUB_ENDED)  # the scheduler ticks 20 times a second
            # an upload: a WAV made here, larger than one LOAD_DATA chunk
            data = sine_wav(seconds=1.5, freq=440)
            self.assertGreater(len(data), 2 * 60000)
            st0 = c.stats()
            up = c.load_memory("up", data)
            self.assertEqual((up["name"], up["frames"], up["channels"]), ("up", 72000, 1))
            st1 = c.stats()  # it went as a sealed memfd (LOAD_FD), not in chunks
            self.assertEqual(st1["uploads_fd"] - st0["uploads_fd"], 1)
            self.assertEqual(st1["uploads_chunked"], st0["uploads_chunked"])
            os.environ["HELIOD_UPLOAD"] = "chunks"  # the fallback: LOAD_DATA frames
            try:
                again = c.load_memory("up2", data)
            finally:
                del os.environ["HELIOD_UPLOAD"]
            self.assertEqual(again["frames"], 72000)
            self.assertEqual(c.stats()["uploads_chunked"] - st1["uploads_chunked"], 1)
            self.assertIn("up", [s["name"] for s in c.sounds()])
            v = c.play("up", gain_db=-6)
            ended = [e for e in c.events(timeout=3.0, duration=3.0)
                     if e.type == "ended" and e.voice == v]
            self.assertEqual(ended[0].reason, "finished")
            self.assertEqual(self.errname(c.load_memory, "junk", b"not audio at all" * 10), "EDECODE")
            self.assertGreater(c.ping(), 0)

    def test_devices(self):
        # switching the device is the operator's: a control client
        with heliod.Client(self.d.sock, control=True) as c:
            devs = c.devices()
            self.assertIsInstance(devs, list)
            for dev in devs:
                self.assertTrue(dev["name"])
            r = c.device("null")
            self.assertEqual((r["driver"], r["rate"], r["period"]), ("null", 48000, 256))
            self.assertEqual(c.stats()["device_portaudio"], 0)
            self.assertEqual(self.errname(c.device, "no-such-device-xyz"), "ENODEV")

    def test_time(self):
        with heliod.Client(self.d.sock) as c:
            c.load("tone", self.wav)
            k1 = c.clock()
            time.sleep(0.5)
            k2 = c.clock()
            self.assertEqual((k1["rate"], k1["period"]), (48000, 256))
            rate = (k2["frame"] - k1["frame"]) / ((k2["time_ns"] - k1["time_ns"]) / 1e9)
            self.assertLess(abs(rate - 48000), 48000 * 0.05)
            self.assertLess(abs(k2["frame"] - k1["frame"] - 24000), 12000)
            # a play scheduled on an exact frame
            c.subscribe(heliod.SUB_STARTED)
            at = heliod.frame_at(k2, time.monotonic_ns()) + 9600
            v = c.play("tone", at=at)
            self.assertEqual(c.late_frames, 0)
            self.assertEqual(c.voice_start_frame(v), at)
            started = [e for e in c.events(timeout=1.0) if e.type == "started" and e.voice == v]
            self.assertEqual(len(started), 1)
            # bus and listener changes scheduled too
            k = c.clock()
            soon = heliod.frame_at(k, time.monotonic_ns()) + 4800
            c.bus_create("mymusic", "music")  # a game's own bus (the default ones are the daemon's)
            c.bus_gain("mymusic", -3, ramp_ms=10, at=soon)
            self.assertEqual(c.late_frames, 0)
            c.listener(pos=(0, 0, 1), at=soon)
            self.assertEqual(c.late_frames, 0)
            # late: a frame long past is applied at once and says how late
            c.play("tone", at=1)
            self.assertGreater(c.late_frames, 0)
            # the sticky frame, for every schedulable call that follows
            f = c.at_ms(100)
            a, b = c.play("tone"), c.play("tone", pan=0.5)
            c.at_frame(0)
            self.assertEqual((c.voice_start_frame(a), c.voice_start_frame(b)), (f, f))
            self.assertEqual(heliod.quantize(f, 4800, ref=f - 100), f + 4700)
            # a bundle: its plays land in the same block
            with c.bundle() as bd:
                p1 = c.play("tone")
                time.sleep(0.05)  # ~9 periods: unbundled, the plays would start apart
                p2 = c.play("tone", pan=-0.5)
                c.listener(pos=(0, 0, 0))
                self.assertEqual(self.errname(c.sounds), "EINVAL")  # not bundleable
                self.assertFalse(p1.done())
            self.assertEqual(bd.count, 3)
            # a start frame is the one asked for until STARTED says where the
            # voice began: asked once the engine is well past it
            v1, v2 = p1.result(), p2.result()
            past = max(c.voice_start_frame(v1), c.voice_start_frame(v2)) + 9600
            while c.clock()["frame"] < past:
                time.sleep(0.01)
            s1, s2 = c.voice_start_frame(v1), c.voice_start_frame(v2)
            self.assertEqual(s1, s2)
            self.assertEqual(self.errname(c.bundle_end), "EINVAL")
            c.bundle_begin()
            p3 = c.play("nosuch")
            self.assertEqual(c.bundle_end(), 1)
            with self.assertRaises(heliod.HeliodError) as e:
                p3.result()
            self.assertEqual(e.exception.name, "ENOSOUND")
            self.assertGreater(c.ping(), 0)

    def test_async_stream(self):
        """AsyncClient.stream: the descriptor rides on the event loop's socket,
        amid other requests; written, consumed, listed, ended, played out."""
        async def run():
            c = await heliod.AsyncClient.connect(self.d.sock, "pyastream")
            await c.load("tone", self.wav)
            # a request in flight before and after: the frames keep their order
            t = c.play("tone", loop=True)
            s = await c.stream(rate=48000, channels=2, format="f32", frames=4096, fade_in_ms=0)
            v = await t
            self.assertIsInstance(s, heliod.AsyncStream)
            self.assertEqual((s.frames, s.channels, s.rate), (4096, 2, 48000))
            pcm = struct.pack("<%df" % (2 * 4800), *([0.25] * (2 * 4800)))
            sent = 0
            while sent < 4800:
                sent += s.write(pcm[sent * 8:])
                self.assertTrue(await s.wait(2.0))
            s.end()
            for _ in range(3000):
                if s.ended():
                    break
                vs = {x["voice"]: x for x in await c.voices()}
                if s.voice in vs:
                    self.assertEqual(vs[s.voice]["sound"], "stream:pyastream")
                    self.assertLessEqual(vs[s.voice]["position_s"], 0.1 + 1e-9)
                await asyncio.sleep(0.001)
            self.assertEqual(s.ended(), "finished")
            self.assertEqual(s.consumed, 4800)
            await s.close()
            # closed while it plays: it stops
            async with await c.stream(channels=1, format="u8", frames=2048) as s2:
                self.assertEqual(s2.write(bytes([128]) * 2048), 2048)
            await c.stop(v, fade_ms=0)
            for _ in range(3000):
                if (await c.stats())["voices_active"] == 0:
                    break
                await asyncio.sleep(0.001)
            self.assertEqual((await c.stats())["voices_active"], 0)
            with self.assertRaises(heliod.HeliodError) as cm:
                await c.stream(loop=True)
            self.assertEqual(cm.exception.name, "EINVAL")
            self.assertGreater(await c.ping(), 0)  # the connection survived all that
            await c.close()
        asyncio.run(run())

    def test_async_new_calls(self):
        async def run():
            c = await heliod.AsyncClient.connect(self.d.sock, "pyasync")
            up = await c.load_memory("up", sine_wav(seconds=0.5))
            self.assertEqual(up["frames"], 24000)
            await c.bus_create("amb", "music")
            self.assertIn(("amb", "music"), [(b["name"], b["parent"]) for b in await c.buses()])
            await c.cue_define("q", "up", bus="amb", loop=True)
            await c.emitter_create("e", pos=(1, 0, 0))
            k = await c.clock()
            self.assertEqual(k["rate"], 48000)
            f = await c.at_ms(50)
            v = await c.play("q", emitter="e")
            c.at_frame(0)
            self.assertEqual(await c.voice_start_frame(v), f)
            async with c.bundle() as b:
                p1 = c.play("up")
                await asyncio.sleep(0.05)
                p2 = c.play("up", pan=1)
            self.assertEqual(b.count, 2)
            v1, v2 = await p1, await p2
            past = max(await c.voice_start_frame(v1), await c.voice_start_frame(v2)) + 9600
            while (await c.clock())["frame"] < past:  # past STARTED: their real frames
                await asyncio.sleep(0.01)
            self.assertEqual(await c.voice_start_frame(v1), await c.voice_start_frame(v2))
            self.assertEqual(await c.pause_bus("amb"), 1)
            with self.assertRaises(heliod.HeliodError) as e:
                await c.fx_remove("amb", 0)
            self.assertEqual(e.exception.name, "ENOFX")
            self.assertEqual(await c.emitter_destroy("e", fade_ms=0), 1)
            await c.close()

        asyncio.run(run())

    def test_demo_scene_example(self):
        ex = os.path.join(SRC, "client", "python", "examples", "demo_scene.py")
        out = subprocess.run([sys.executable, ex, "--socket", self.d.sock, "--seconds", "2.5"],
                             capture_output=True, text=True, timeout=60)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("voices", out.stdout)
        self.assertIn("real", out.stdout)

    def test_layered_music_example(self):
        # cue sheets need a control client: the test daemon's owner may load them
        ex = os.path.join(SRC, "client", "python", "examples", "layered_music.py")
        out = subprocess.run([sys.executable, ex, "--socket", self.d.sock, "--seconds", "2.5"],
                             capture_output=True, text=True, timeout=60)
        self.assertEqual(out.returncode, 0, out.stderr)
        bars = [l.split() for l in out.stdout.splitlines() if l.startswith("bar ")]
        self.assertGreaterEqual(len(bars), 2, out.stdout)
        # bars a second apart at 240 BPM 4/4, frames from the engine's own clock
        head = out.stdout.split("start on frame ")[1].split()
        start, rate = int(head[0]), int(head[2])
        for b in bars:
            self.assertEqual(int(b[3]) - start, int(b[1]) * rate)
        self.assertIn("stinger", out.stdout)


if __name__ == "__main__":
    unittest.main(verbosity=2)
