"""heliod - a pure-Python client of the heliod game-audio daemon.

Speaks the wire protocol of proto/PROTOCOL.md directly (standard library
only: socket, struct, asyncio), so it needs neither libheliod nor a C
compiler, and offers the calls of libheliod's blocking API. Two faces over
one codec:

    Client       blocking, like libheliod's blocking calls:
                     with heliod.Client(socket=None, name="tool") as c:
                         c.load("boom", "/abs/boom.wav")
                         v = c.play("boom", gain_db=-6, pos=(3, 0, -2))
                         c.set(v, pos=(0, 0, -2), ramp_ms=200)
                         c.stop(v, fade_ms=300)
    AsyncClient  the same calls as awaitables, for asyncio programs:
                     c = await heliod.AsyncClient.connect()
                     v = await c.play("boom")

The calls, by domain (each method's docstring has its keywords):

    connection  ping, stats, subscribe, sync, close
    sounds      load, load_memory (LOAD_DATA upload), unload, sounds
    voices      play, stop, stop_all, set, pause, resume, seek, pause_all,
                resume_all, pause_bus, resume_bus, pause_category,
                resume_category, listener, voices
    cues        cue_define, category_define, cues_load, cues
    emitters    emitter_create, emitter_set, emitter_destroy
    parameters  param_define, param_set, bind, bind_clear, params (protocol 1.1)
    graph       bus_create, bus_remove, bus_parent, bus_gain, bus_mute,
                bus_send, buses, fx_add, fx_set, fx_remove, fx_list, duck,
                duck_remove, ducks, reverb_zone_set, reverb_zone_remove,
                reverb_zones
    devices     devices, device
    assets      bank_load, bank_unload, banks, zone_add, zone_remove, zones
    streams     stream (client-fed PCM: a Stream, or an AsyncStream from
                AsyncClient, whose wait() and close() are awaited)
    time        clock, voice_start_frame, at_frame, at_ms, late_frames,
                bundle_begin, bundle_end, bundle (a context manager); the
                functions frame_at and quantize; at=FRAME on play, stop,
                set, pause, resume, seek, listener and bus_gain/mute/send

Events (every type: ERROR, ENDED, STARTED, VIRTUAL, REAL, DEVICE_LOST/BACK,
METER, BANK, ZONE_TICK, PROFILE) arrive as Event objects: Client.events(timeout)
yields them, AsyncClient.next_event() awaits one. Errors from the daemon
raise HeliodError with the protocol's code, its name ("ENOSOUND") and the
daemon's message; arguments this client can tell are wrong (an unknown
enumeration name, a string too long) raise it before anything is sent.
"""

from ._bodies import (BANK_STATES, CURVES, END_REASONS, EQ_TYPES, FX_PARAMS, LOAD_COMPRESSED, LOAD_PIN,
                      LOAD_SHARED, LOAD_STREAM, MODELS, OVER_BUS, OVER_DISTANCE, OVER_FADE_IN,
                      OVER_FILTER, OVER_PAN, OVER_PRIORITY, OVER_SENDS, OVERFLOWS, PICKS,
                      PLAY_3D, PLAY_CUBIC, PLAY_DETACHED, PLAY_LINEAR, PLAY_LOOP, PLAY_PAUSED, PLAY_SINC, REVERB_PRESETS,
                      SUB_ALL, SUB_BANK, SUB_DEVICE, SUB_ENDED, SUB_METER, SUB_MUSIC, SUB_PROFILE,
                      SUB_STARTED, SUB_STREAM, SUB_VIRTUAL, SUB_ZONES, VIRT_REASONS, VOICE_STATES, ZONE_STATES,
                      frame_at, fx_parse, quantize)
from ._client import AsyncClient, Bundle, Client, Pending
from ._wire import ERRORS, OP, PROTO_MINOR, PROTO_VERSION, HeliodError, default_socket
from .events import EVENT_TYPES, Event
from .stream import AsyncStream, Stream

__all__ = ["Client", "AsyncClient", "Stream", "AsyncStream", "HeliodError", "Event", "Pending", "Bundle",
           "default_socket", "frame_at", "quantize", "fx_parse", "ERRORS", "OP", "EVENT_TYPES",
           "PROTO_VERSION", "PROTO_MINOR", "SUB_ENDED", "SUB_STARTED", "SUB_ALL", "SUB_VIRTUAL", "SUB_DEVICE",
           "SUB_METER", "SUB_BANK", "SUB_ZONES", "SUB_PROFILE", "SUB_STREAM", "SUB_MUSIC", "LOAD_STREAM", "LOAD_SHARED",
           "LOAD_PIN", "LOAD_COMPRESSED", "PLAY_LOOP", "PLAY_3D", "PLAY_DETACHED", "PLAY_PAUSED", "PLAY_CUBIC", "PLAY_SINC", "PLAY_LINEAR",
           "OVER_PRIORITY", "OVER_BUS", "OVER_FADE_IN", "OVER_DISTANCE", "OVER_PAN",
           "OVER_FILTER", "OVER_SENDS", "MODELS", "PICKS", "OVERFLOWS", "CURVES", "EQ_TYPES",
           "REVERB_PRESETS", "FX_PARAMS", "VOICE_STATES", "END_REASONS", "VIRT_REASONS",
           "BANK_STATES", "ZONE_STATES"]
