#!/usr/bin/env python3
"""test_bodies_schema.py - the Python client's bodies
(client/python/heliod/_bodies.py, over the tables _schema.py generated
from the schema and the codec _codec.py) hold to the protocol schema
(proto/hl_schema.h, printed as JSON by tests/proto/schema_dump):

- every encoder writes exactly the schema's fields in order: its body,
  decoded field by field from the schema alone, is consumed exactly and
  carries the values it was given;
- every decoder reads exactly the schema's fields: a body encoded from the
  schema alone (every field a different value) is consumed exactly and the
  decoded values are the schema's, field by field;
- the flag constants OR'd together are the schema's masks, and each
  enumeration's names are as many as the schema's values.

usage: test_bodies_schema.py SCHEMA_DUMP CLIENT_PYTHON_DIR
"""
import json
import struct
import subprocess
import sys
import unittest

SCHEMA = {}
B = None  # heliod._bodies
WIRE = None  # heliod._wire

FMT = {"U8": "<B", "ENUM8": "<B", "FLAGS8": "<B", "U16": "<H", "COUNT16": "<H", "U32": "<I",
       "FLAGS32": "<I", "I32": "<i", "STATUS": "<i", "MINOR": "<H", "U64": "<Q", "F32": "<f",
       "F32OPT": "<f", "F64": "<d"}


def f32(v):
    return struct.unpack("<f", struct.pack("<f", v))[0]


def leaves(msg, prefix="", nsounds=2):
    """The body's wire fields in order: (path, kind, arg)."""
    out = []
    for f in SCHEMA[msg]["fields"]:
        path, kind, arg = prefix + f["name"], f["kind"], f["arg"]
        if kind == "SUB":
            out += leaves(f["sub"], path + ".", nsounds)
        elif kind == "SENDS":
            for i in range(int(arg)):
                out += [(f"{path}[{i}]", "STR", 63), (f"{path}_db[{i}]", "F32", 0)]
        elif kind == "NSTR":
            out.append((prefix + "n" + f["name"], "NCOUNT", nsounds))
            out += [(f"{path}[{i}]", "STR", 63) for i in range(nsounds)]
        elif kind == "VEC3":
            out.append((path, "VEC3", 3))
        elif kind == "F32N":
            out.append((path, "F32N", int(arg)))
        else:
            out.append((path, kind, arg))
    return out


def decode(msg, body, nsounds=2):
    """{path: value} of body read by the schema alone; raises unless exact."""
    vals, off = {}, 0
    # a later minor's fields an encoder left off at their defaults ("" for a string)
    later = {f["name"]: ("" if f["kind"] == "STR" else f["default"])
             for f in SCHEMA[msg]["fields"] if f.get("since", "1.0") != "1.0"}
    for path, kind, arg in leaves(msg, nsounds=nsounds):
        if off == len(body) and path in later:  # a later minor's field, absent: its default
            vals[path] = later[path]
            continue
        if kind == "STR":
            (n,) = struct.unpack_from("<H", body, off)
            assert n <= arg, f"{msg}.{path}: string of {n} > {arg}"
            vals[path] = bytes(body[off + 2:off + 2 + n]).decode()
            off += 2 + n
        elif kind == "NCOUNT":
            vals[path] = body[off]
            off += 1
        elif kind in ("VEC3", "F32N"):
            vals[path] = struct.unpack_from("<%df" % arg, body, off)
            off += 4 * int(arg)
        elif kind == "BLOB":
            n = vals[path.rsplit(".", 1)[0] + "len" if "." in path else "len"]
            vals[path] = bytes(body[off:off + n])
            off += n
        else:
            (vals[path],) = struct.unpack_from(FMT[kind], body, off)
            off += struct.calcsize(FMT[kind])
    assert off == len(body), f"{msg}: {len(body) - off} bytes beyond the schema's fields"
    return vals


def sample(msg, nsounds=2):
    """(body, {path: value}): every field of msg a different valid value."""
    b, vals = bytearray(), {}
    for i, (path, kind, arg) in enumerate(leaves(msg, nsounds=nsounds)):
        if kind == "STR":
            v = "n%d" % i
            b += struct.pack("<H", len(v)) + v.encode()
        elif kind == "NCOUNT":
            v = arg
            b += bytes([v])
        elif kind in ("VEC3", "F32N"):
            v = tuple(f32(i + 0.25 * k) for k in range(int(arg)))
            b += struct.pack("<%df" % arg, *v)
        elif kind == "ENUM8":
            v = min(int(arg), 1 + i % 2)
            b += bytes([v])
        elif kind in ("FLAGS8", "FLAGS32"):
            v = int(arg)
            b += struct.pack(FMT[kind], v)
        elif kind == "STATUS":
            v = 0
            b += struct.pack("<i", v)
        elif kind == "COUNT16":
            v = 0
            b += struct.pack("<H", v)
        elif kind in ("F32", "F32OPT", "F64"):
            v = f32(i + 0.5)
            b += struct.pack(FMT[kind], v)
        else:
            v = i + 1
            b += struct.pack(FMT[kind], v)
        vals[path] = v
    return bytes(b), vals


class Encoders(unittest.TestCase):
    """Each enc_*: its body read by the schema carries what it was given."""

    def check(self, msg, body, want, nsounds=2):
        got = decode(msg, body, nsounds)
        for k, v in want.items():
            self.assertIn(k, got, f"{msg}: no field {k} in the schema")
            g = got[k]
            if isinstance(v, float):
                v = f32(v)
            if isinstance(v, (list, tuple)):
                v = tuple(f32(x) for x in v)
            self.assertEqual(g, v, f"{msg}.{k}")

    def test_requests(self):
        self.check("hello", B.hello_body("tool", True), {"version": 1, "client_name": "tool",
                                                          "flags": 1, "minor": WIRE.PROTO_MINOR})
        self.check("play", B.enc_play("shot", gain_db=-3.0, pan=0.5, pitch=1.5, priority=7,
                                      fade_in_ms=5.0, bus="music", loop_start=10, loop_end=20,
                                      loop_count=2, loop=True, loop_xfade_ms=3.0,
                                      vel=(1, 2, 3), emitter="car", lp_hz=800.0,
                                      sends=[("verb", -6.0)]),
                   {"sound": "shot", "gain_db": -3.0, "pan": 0.5, "pitch": 1.5, "priority": 7,
                    "fade_in_ms": 5.0, "bus": "music", "loop_start": 10, "loop_end": 20,
                    "loop_count": 2, "loop_xfade_ms": 3.0, "vel": (1, 2, 3), "emitter": "car",
                    "post.lp_hz": 800.0, "post.send[0]": "verb", "post.send_db[0]": -6.0,
                    "model": 1})
        self.check("stop", B.enc_stop(9, 12.0, "log"), {"voice": 9, "fade_ms": 12.0, "curve": 3})
        self.check("set", B.enc_set(9, gain_db=-1.0, pos=(1, 2, 3), seek_s=2.5, ramp_ms=4.0,
                                    occlusion=0.5, sends=[("a", -3.0), ("b", -4.0)]),
                   {"voice": 9, "gain_db": -1.0, "pos": (1, 2, 3), "seek_s": 2.5,
                    "ramp_ms": 4.0, "post.occlusion": 0.5, "post.send[1]": "b",
                    "post.send_db[1]": -4.0, "mask": B.SET_GAIN | B.SET_POS | B.SET_SEEK |
                    B.SET_OCCLUSION | B.SET_SENDS})
        self.check("pause", B.enc_pause(True, B.PAUSE_BUS, "music"),
                   {"pause": 1, "scope": 2, "group": "music"})
        self.check("listener", B.enc_listener(pos=(1, 2, 3), vel=(4, 5, 6)),
                   {"mask": B.LST_POS | B.LST_VEL, "pos": (1, 2, 3), "vel": (4, 5, 6)})
        self.check("subscribe", B.enc_subscribe(3, 30.0, 50.0),
                   {"mask": 3, "meter_hz": 30.0, "profile_hz": 50.0})
        self.check("load_fd", B.enc_load_fd("up", 2, 1000), {"name": "up", "flags": 2,
                                                              "size": 1000})
        self.check("load_data", B.enc_load_data("up", 4, 100, 10, b"abc"),
                   {"name": "up", "flags": 4, "total": 100, "offset": 10, "len": 3,
                    "data": b"abc"})
        self.check("cue", B.enc_cue("steps", ["a", "b", "c"], pick="sequence", gain_db=-2.0,
                                    category="foley", max_instances=4, overflow="steal-farthest",
                                    doppler=0.5, hp_hz=100.0, fade_curve="log"),
                   {"name": "steps", "nsounds": 3, "sounds[2]": "c", "pick": 2, "gain_db": -2.0,
                    "category": "foley", "max_instances": 4, "overflow": 5, "doppler": 0.5,
                    "post.hp_hz": 100.0, "fade_curve": 2, "model": 1}, nsounds=3)
        self.check("category", B.enc_category("w", 3, "stop-oldest", 20.0, "equal-power"),
                   {"name": "w", "max_instances": 3, "overflow": 1, "fade_out_ms": 20.0,
                    "fade_curve": 1})
        self.check("emitter", B.enc_emitter(1, "car", pos=(1, 2, 3), ramp_ms=5.0),
                   {"action": 1, "name": "car", "mask": B.EM_POS, "pos": (1, 2, 3),
                    "ramp_ms": 5.0, "fade_ms": -1.0})
        self.check("bus", B.enc_bus("music", B.BUS_SEND | B.BUS_GAIN, -3.0, 10.0, True, "",
                                    "verb", -6.0),
                   {"name": "music", "mask": B.BUS_SEND | B.BUS_GAIN, "gain_db": -3.0,
                    "ramp_ms": 10.0, "mute": 1, "send": "verb", "send_db": -6.0})
        self.check("fx_req", B.enc_fx(0, "sfx", 2, "eq", "peak", 5.0, freq=1000.0, gain=-6.0),
                   {"action": 0, "bus": "sfx", "index": 2, "kind": 1, "type": 4,
                    "mask": 0x1 | 0x4 | B.FXP_TYPE, "ramp_ms": 5.0})
        self.check("duck_rule", B.enc_duck("music", "dialog", True, depth_db=12.0),
                   {"bus": "music", "by": "dialog", "on": 1, "depth_db": 12.0,
                    "threshold_db": -40.0, "release_ms": 600.0})
        self.check("rzone", B.enc_rzone(0, "cave", (1, 2, 3), 5.0, 2.0, "", "", "cave"),
                   {"action": 0, "name": "cave", "pos": (1, 2, 3), "radius": 5.0, "fade": 2.0,
                    "preset": 2})
        self.check("zone", B.enc_zone(0, "town", "/b/town.bank", (1, 2, 3), 50.0),
                   {"action": 0, "name": "town", "bank": "/b/town.bank", "radius": 50.0})


class Decoders(unittest.TestCase):
    """Each decoder reads a schema-made body exactly, field by field."""

    def run_dec(self, fn, msg, nsounds=2, done=True):
        body, vals = sample(msg, nsounds)
        r = WIRE.R(body)
        out = fn(r)
        if done:
            r.done()
        return out, vals

    def same(self, out, vals, keys, msg):
        for k in keys:
            src = k if isinstance(k, str) else k[1]
            dst = k if isinstance(k, str) else k[0]
            v = vals[src]
            self.assertEqual(out[dst], v, f"{msg}.{src}")

    def plain(self, out, vals, msg, skip=()):
        """Every top-level number and string of the schema under its own name."""
        for path, v in vals.items():
            if "." in path or "[" in path or path in skip:
                continue
            self.assertIn(path, out, f"{msg}: {path} not decoded")
            if isinstance(out[path], str) and not isinstance(v, str):
                continue  # an enumeration, decoded to its name
            self.assertEqual(out[path], v, f"{msg}.{path}")

    def test_replies(self):
        out, vals = self.run_dec(B.dec_hello, "hello_reply")
        self.plain(out, vals, "hello_reply", skip=("minor",))
        # the daemon's minor (since 1.1): the client keeps the lower of it and its own
        self.assertEqual(out["minor"], min(vals["minor"], WIRE.PROTO_MINOR))
        body, _ = sample("hello_reply")
        r = WIRE.R(body[:-2])  # a 1.0 daemon's reply: no minor, 1.0 spoken
        self.assertEqual(B.dec_hello(r)["minor"], 0)
        r.done()
        out, vals = self.run_dec(B.get_sound, "sound_info")
        self.plain(out, vals, "sound_info")
        out, vals = self.run_dec(B.get_voice, "voice_info")
        self.plain(out, vals, "voice_info")
        self.assertEqual(out["post"]["lp_hz"], vals["post.lp_hz"])
        self.assertEqual(out["post"]["sends"][1], (vals["post.send[1]"],
                                                   vals["post.send_db[1]"]))
        out, vals = self.run_dec(B.get_device, "device_info")
        self.plain(out, vals, "device_info")
        out, vals = self.run_dec(B.dec_device_reply, "device_reply", done=False)
        self.plain(out, vals, "device_reply")
        out, vals = self.run_dec(B.get_bus_info, "bus_info")
        self.plain(out, vals, "bus_info", skip=("mute",))
        self.assertEqual(out["mute"], bool(vals["mute"]))
        self.assertEqual(out["bus_sends"][0], (vals["send[0]"], vals["send_db[0]"]))
        out, vals = self.run_dec(B.get_fx_info, "fx_info")
        self.same(out, vals, ["bus", "index"], "fx_info")
        self.assertEqual(tuple(out["params"].values()), vals["p"][:len(out["params"])])
        out, vals = self.run_dec(B.get_duck_info, "duck_info")
        self.same(out, vals, [("bus", "rule.bus"), ("by", "rule.by"),
                              ("depth_db", "rule.depth_db"), ("release_ms", "rule.release_ms"),
                              "gain_db"], "duck_info")
        out, vals = self.run_dec(B.get_rzone_info, "rzone_info")
        self.same(out, vals, [("name", "zone.name"), ("radius", "zone.radius"),
                              ("feed", "zone.feed"), "weight", "send_db"], "rzone_info")
        out, vals = self.run_dec(B.get_bank_info, "bank_info")
        self.plain(out, vals, "bank_info")
        out, vals = self.run_dec(B.get_zone_info, "zone_info")
        self.same(out, vals, [("name", "zone.name"), ("bank", "zone.bank"),
                              ("radius", "zone.radius"), "bytes", "distance"], "zone_info")
        out, vals = self.run_dec(B.get_clock, "clock")
        self.plain(out, vals, "clock")
        out, vals = self.run_dec(B._get_cue, "cue", nsounds=3)
        self.plain(out, vals, "cue", skip=("nsounds",))
        self.assertEqual(out["sounds"], [vals["sounds[%d]" % i] for i in range(3)])
        out, vals = self.run_dec(B._get_category, "category")
        self.plain(out, vals, "category")
        out, vals = self.run_dec(lambda r: (B.dec_play_reply(r)), "play_reply", done=False)
        self.assertEqual(out, vals["voice"])
        out, vals = self.run_dec(B.dec_count, "count_reply", done=False)
        self.assertEqual(out, vals["count"])
        out, vals = self.run_dec(B.dec_cues_load, "cues_load_reply", done=False)
        self.assertEqual(out, (vals["cues"], vals["categories"]))
        # CUES entry: u8 kind, then a CATEGORY, then the counters
        cat, _ = sample("category")
        cnt, cvals = sample("cue_counters")
        r = WIRE.R(bytes([1]) + cat + cnt)
        e = B.get_cue_info(r)
        r.done()
        self.assertEqual(e["counters"], {k: cvals[k] for k in cvals})


class Tables(unittest.TestCase):
    """Flag constants and enumeration names against the schema."""

    def arg(self, msg, field):
        return int(next(f["arg"] for f in SCHEMA[msg]["fields"] if f["name"] == field))

    def test_masks(self):
        def ors(prefix):
            return sum(v for k, v in vars(B).items() if k.startswith(prefix) and
                       isinstance(v, int) and k not in ("PAUSE_MINE",))
        self.assertEqual(ors("PLAY_"), self.arg("play", "flags"))
        self.assertEqual(ors("SET_"), self.arg("set", "mask"))
        self.assertEqual(ors("LST_"), self.arg("listener", "mask"))
        self.assertEqual(ors("SUB_"), self.arg("subscribe", "mask"))
        self.assertEqual(ors("LOAD_"), self.arg("load", "flags"))
        self.assertEqual(ors("OVER_"), self.arg("play", "over"))
        self.assertEqual(ors("BUS_"), self.arg("bus", "mask"))
        self.assertEqual(ors("EM_"), self.arg("emitter", "mask"))

    def test_enums(self):
        for names, msg, field in ((B.MODELS, "play", "model"), (B.PICKS, "cue", "pick"),
                                  (B.OVERFLOWS, "cue", "overflow"),
                                  (B.BEYONDS, "cue", "beyond"), (B.VIRTS, "cue", "virt"),
                                  (B.CURVES, "cue", "fade_curve"),
                                  (B.VOICE_STATES, "voice_info", "state"),
                                  (B.BANK_STATES, "bank_info", "state"),
                                  (B.ZONE_STATES, "zone_info", "state"),
                                  (B.REVERB_PRESETS, "rzone", "preset"),
                                  (B.FX_KINDS, "fx_req", "kind"), (B.EQ_TYPES, "fx_req", "type")):
            self.assertEqual(len(names), self.arg(msg, field) + 1, f"{msg}.{field}")


def main():
    global B, WIRE
    dump, pydir = sys.argv[1], sys.argv[2]
    for m in json.loads(subprocess.run([dump], check=True, capture_output=True,
                                       text=True).stdout):
        SCHEMA[m["name"]] = m
    sys.path.insert(0, pydir)
    from heliod import _bodies, _wire
    B, WIRE = _bodies, _wire
    unittest.main(argv=[sys.argv[0], "-v"])


if __name__ == "__main__":
    main()
