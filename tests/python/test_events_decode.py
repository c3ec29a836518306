#!/usr/bin/env python3
"""test_events_decode.py - the Python client's event decoder
(client/python/heliod/events.py) on bodies as proto.c encodes them, for the
events a test daemon cannot easily send: DEVICE_LOST and DEVICE_BACK (not on
the null driver), RELOAD (--watch-assets), and METER with a surround
layout's trailing channels (since 1.1). No daemon: the bodies are built here.

usage: test_events_decode.py
"""
import os
import struct
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "client", "python"))
import heliod  # noqa: E402


class EventsDecodeTest(unittest.TestCase):
    def test_device_and_reload(self):
        # DEVICE_LOST / DEVICE_BACK cannot happen on the null driver: their
        # bodies as proto.c encodes them (str(255) name, u64 time_ns)
        for t, name in ((6, "device_lost"), (7, "device_back")):
            e = heliod.Event(0, struct.pack("<HH", t, 5) + b"pulse" + struct.pack("<Q", 77))
            self.assertEqual((e.type, e.device, e.time_ns), (name, "pulse", 77))
        # RELOAD (heliod --watch-assets): str(63) sound, i32 status, u32 frames, str message
        e = heliod.Event(0, struct.pack("<HH", 11, 4) + b"boom" + struct.pack("<iIH", 0, 24000, 0))
        self.assertEqual((e.type, e.sound, e.status, e.name, e.frames), ("reload", "boom", 0, "OK",
                                                                         24000))
        with self.assertRaises(heliod.HeliodError) as e:
            heliod.Event(0, struct.pack("<H", 12))
        self.assertEqual(e.exception.name, "EPROTO")

    def test_meter_surround(self):
        # METER on 5.1 (since 1.1): after the buses, u8 channels, then per level
        # (master, each bus) the channels past the front pair: peaks, holds, rms
        lv = struct.pack("<6f", -6, -6, -3, -3, -9, -9)
        body = (struct.pack("<HQ4f", 8, 480, -23, -23, -144, 0) + lv + struct.pack("<BH", 1, 3) +
                b"sfx" + lv)
        e = heliod.Event(0, body)
        self.assertEqual((e.channels, e.buses["sfx"]["peak_db"]), (2, (-6, -6)))
        more = struct.pack("<12f", *([-144.0] * 12)) + struct.pack("<12f", -144, -144, -12, -20,
                                                                    -144, -144, -12, -20,
                                                                    -144, -144, -15, -23)
        e = heliod.Event(0, body + struct.pack("<B", 6) + more)
        self.assertEqual(e.channels, 6)
        self.assertEqual(e.buses["sfx"]["peak_db"], (-6, -6, -144, -144, -12, -20))
        self.assertEqual(e.buses["sfx"]["rms_db"], (-9, -9, -144, -144, -15, -23))
        self.assertEqual(len(e.master["peak_hold_db"]), 6)
        with self.assertRaises(heliod.HeliodError) as e:  # stereo is left off, not sent as 2
            heliod.Event(0, body + struct.pack("<B", 2))
        self.assertEqual(e.exception.name, "EPROTO")


if __name__ == "__main__":
    unittest.main()
