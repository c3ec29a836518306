"""Drives the protocol 1.0 Python client (client/python of commit 4550bf8,
on PYTHONPATH) against gen_corpus.py's recording server: every request kind
it can send. The server answers errors; only the frames matter."""
import sys

import heliod

sock = sys.argv[1]
c = heliod.Client(sock, name="corpus-py")


def call(fn, *a, **kw):
    try:
        fn(*a, **kw)
    except Exception:  # the recorder refuses everything
        pass


call(c.ping)
call(c.stats)
call(c.stats, reset=True)
call(c.subscribe, 0x3)
call(c.subscribe, 0x20, meter_hz=50.0, profile_hz=5.0)
call(c.load, "py_boom", "/srv/sfx/boom.wav", stream=True, shared=True, pin=True)
call(c.load_memory, "py_up", b"RIFF" + bytes(range(256)) * 4, shared=True)
call(c.unload, "py_boom")
call(c.sounds)
call(c.play, "py_boom")
call(c.play, "py_boom", gain_db=-6.0, pan=0.5, pos=(1.0, 2.0, 3.0), pitch=1.5, priority=10,
     loop=True, bus="music", fade_in_ms=20.0)
call(c.stop, 5, fade_ms=100.0)
call(c.stop, 5, fade_ms=10.0, curve="log", noreply=True)
call(c.stop_all, fade_ms=50.0, everyone=True)
call(c.set, 6, gain_db=-3.0, pan=-0.5, ramp_ms=20.0)
call(c.set, 6, pos=(0.0, 0.0, -5.0), noreply=True)
call(c.pause, 6, ramp_ms=30.0)
call(c.resume, 6)
call(c.seek, 6, 1.25)
call(c.pause_all)
call(c.resume_all, everyone=True)
call(c.pause_bus, "music")
call(c.resume_category, "footsteps")
call(c.listener, pos=(1.0, 0.0, 0.0), forward=(0.0, 0.0, -1.0), up=(0.0, 1.0, 0.0),
     vel=(0.5, 0.0, 0.0))
call(c.voices)
call(c.category_define, "py_cat", max_instances=3, overflow="stop-oldest")
call(c.cue_define, "py_cue", ["a", "b"])
call(c.cues_load, "/srv/game/cues.txt")
call(c.cues)
call(c.emitter_create, "py_em", (1.0, 2.0, 3.0), vel=(0.0, 1.0, 0.0), detached=True)
call(c.emitter_set, "py_em", pos=(4.0, 5.0, 6.0), ramp_ms=10.0)
call(c.emitter_destroy, "py_em", fade_ms=20.0)
call(c.bus_create, "py_bus", parent="music")
call(c.bus_gain, "py_bus", -12.0, ramp_ms=5.0)
call(c.bus_mute, "py_bus")
call(c.bus_send, "py_bus", "hall", -9.0)
call(c.bus_parent, "py_bus", "sfx")
call(c.bus_remove, "py_bus")
call(c.buses)
call(c.fx_add, "music", "eq", type="lowpass", freq=500.0)
call(c.fx_set, "music", 0, "eq", gain=-3.0)
call(c.fx_remove, "music", 0)
call(c.fx_list)
call(c.duck, "music", "dialog")
call(c.duck_remove, "music", "dialog")
call(c.ducks)
call(c.reverb_zone_set, "py_rz", (0.0, 0.0, 0.0), 5.0, fade=1.0, preset="cave")
call(c.reverb_zone_remove, "py_rz")
call(c.reverb_zones)
call(c.devices)
call(c.device, "null")
call(c.bank_load, "/srv/game/forest.bank")
call(c.bank_unload, "forest")
call(c.banks)
call(c.zone_add, "py_zone", "/srv/game/forest.bank", (10.0, 0.0, 0.0), 20.0)
call(c.zone_remove, "py_zone")
call(c.zones)
call(c.clock)
call(c.voice_start_frame, 7)
call(c.play, "py_boom", at=96000)
call(c.bus_gain, "music", -6.0, at=96000)
try:
    with c.bundle():
        c.play("py_boom")
except Exception:
    pass
c.close()
