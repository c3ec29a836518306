"""heliod - a pure-Python client of the heliod game-audio daemon.

Speaks the wire protocol of proto/PROTOCOL.md directly (standard library
only: socket, struct, asyncio), so it needs neither libheliod nor a C
compiler. Two faces over one codec:

    Client       blocking, like libheliod's blocking calls:
                     with heliod.Client(socket=None, name="tool") as c:
                         c.load("boom", "/abs/boom.wav")
                         v = c.play("boom", gain_db=-6, pos=(3, 0, -2))
                         c.set(v, pos=(0, 0, -2), ramp_ms=200)
                         c.stop(v, fade_ms=300)
    AsyncClient  the same calls as coroutines, for asyncio programs:
                     c = await heliod.AsyncClient.connect()
                     v = await c.play("boom")

Events (ENDED, STARTED, VIRTUAL, REAL, DEVICE_LOST/BACK, METER, PROFILE,
ERROR) arrive as Event objects: Client.events(timeout) yields them,
AsyncClient.next_event() awaits one. Errors from the daemon raise
HeliodError with the protocol's code, its name and the daemon's message.
"""

import asyncio
import os
import socket as _socket
import struct
import time

__all__ = ["Client", "AsyncClient", "HeliodError", "Event", "default_socket"]

PROTO_VERSION = 1
FRAME_HDR = 12
MAX_FRAME = 65536
FLAG_NOREPLY = 0x1
HELLO_CONTROL = 0x1

OP = {"hello": 1, "ping": 2, "load": 3, "unload": 4, "sounds": 5, "play": 6, "stop": 7,
      "stop_all": 8, "set": 9, "listener": 10, "voices": 11, "devices": 12, "stats": 13,
      "subscribe": 14, "bus": 15, "pause": 16}
OP_REPLY, OP_EVENT = 128, 129

# PLAY flags, SET mask, LISTENER mask, SUBSCRIBE mask (PROTOCOL.md)
PLAY_LOOP, PLAY_3D, PLAY_DETACHED, PLAY_PAUSED, PLAY_CUBIC = 0x1, 0x2, 0x4, 0x8, 0x10
SET_GAIN, SET_PAN, SET_POS, SET_PITCH, SET_PAUSE, SET_RESUME, SET_SEEK, SET_VEL = (
    0x1, 0x2, 0x4, 0x8, 0x10, 0x20, 0x40, 0x80)
LST_POS, LST_FWD, LST_UP, LST_VEL = 0x1, 0x2, 0x4, 0x8
SUB_ENDED, SUB_STARTED, SUB_ALL, SUB_VIRTUAL, SUB_DEVICE, SUB_METER = (
    0x1, 0x2, 0x4, 0x8, 0x10, 0x20)
SUB_PROFILE = 0x100
LOAD_STREAM, LOAD_SHARED = 0x1, 0x2
MODELS = {"linear": 0, "inverse": 1, "exponential": 2}
VOICE_STATES = ("playing", "stopping", "paused", "virtual", "vpaused")
END_REASONS = ("finished", "stopped", "stolen", "owner", "shutdown", "evicted", "distance",
               "emitter", "killed", "lifetime")
EVENT_TYPES = {1: "error", 2: "ended", 3: "started", 4: "virtual", 5: "real",
               6: "device_lost", 7: "device_back", 8: "meter", 20: "profile"}

# proto/heliod_errors.h
ERRORS = {-1: "EPROTO", -2: "EVERSION", -3: "EBADOP", -4: "EINVAL", -5: "ENOSOUND",
          -6: "ENOVOICE", -7: "EEXIST", -8: "EBUSY", -9: "ENOVOICES", -10: "EFILE",
          -11: "EDECODE", -12: "EINUSE", -13: "ETOOBIG", -14: "ENOMEM", -15: "ENAME",
          -16: "ENOBUS", -17: "ENODEV", -18: "ECONNECT", -19: "ECLOSED", -20: "EHANDSHAKE",
          -21: "EIO", -22: "ETIMEDOUT", -23: "ESHUTDOWN", -24: "EINTERVAL", -25: "EDISTANCE",
          -26: "ECUELIMIT", -27: "ECATLIMIT", -28: "ENOCATEGORY", -29: "ENOEMITTER",
          -30: "EPERM", -31: "EQUOTA", -32: "EBUSINUSE", -33: "ENOFX"}


class HeliodError(Exception):
    """A failed request: code (negative), name ("ENOSOUND") and the daemon's message."""

    def __init__(self, code, message=""):
        self.code = code
        self.name = ERRORS.get(code, "E%d" % code)
        self.message = message
        super().__init__("%s: %s" % (self.name, message) if message else self.name)


def default_socket():
    """The path libheliod and heliod use: $HELIOD_SOCKET, else
    $XDG_RUNTIME_DIR/heliod/heliod.sock, else /tmp/heliod-$UID/heliod.sock."""
    if os.environ.get("HELIOD_SOCKET"):
        return os.environ["HELIOD_SOCKET"]
    if os.environ.get("XDG_RUNTIME_DIR"):
        return os.path.join(os.environ["XDG_RUNTIME_DIR"], "heliod", "heliod.sock")
    return "/tmp/heliod-%d/heliod.sock" % os.getuid()


# ---- codec ---------------------------------------------------------------

class _W:
    """A body being written (little-endian, PROTOCOL.md "Encoding")."""

    def __init__(self):
        self.b = bytearray()

    def u8(self, v):
        self.b += struct.pack("<B", v)
        return self

    def u16(self, v):
        self.b += struct.pack("<H", v)
        return self

    def u32(self, v):
        self.b += struct.pack("<I", v)
        return self

    def i32(self, v):
        self.b += struct.pack("<i", v)
        return self

    def u64(self, v):
        self.b += struct.pack("<Q", v)
        return self

    def f32(self, v):
        self.b += struct.pack("<f", v)
        return self

    def f64(self, v):
        self.b += struct.pack("<d", v)
        return self

    def vec3(self, v):
        x, y, z = v
        self.b += struct.pack("<fff", x, y, z)
        return self

    def str(self, s, limit=63):
        data = s.encode()
        if len(data) > limit or b"\0" in data:
            raise HeliodError(-4, "string longer than %d bytes or with a NUL" % limit)
        self.b += struct.pack("<H", len(data)) + data
        return self


class _R:
    """A body being read; every body must be consumed exactly."""

    def __init__(self, b):
        self.b, self.o = b, 0

    def _take(self, fmt):
        n = struct.calcsize(fmt)
        if self.o + n > len(self.b):
            raise HeliodError(-1, "short body")
        v = struct.unpack_from(fmt, self.b, self.o)
        self.o += n
        return v

    def u8(self):
        return self._take("<B")[0]

    def u16(self):
        return self._take("<H")[0]

    def u32(self):
        return self._take("<I")[0]

    def i32(self):
        return self._take("<i")[0]

    def u64(self):
        return self._take("<Q")[0]

    def f32(self):
        return self._take("<f")[0]

    def f64(self):
        return self._take("<d")[0]

    def vec3(self):
        return self._take("<fff")

    def str(self):
        n = self.u16()
        if self.o + n > len(self.b):
            raise HeliodError(-1, "short string")
        s = bytes(self.b[self.o:self.o + n]).decode(errors="replace")
        self.o += n
        return s

    def left(self):
        return len(self.b) - self.o

    def done(self):
        if self.o != len(self.b):
            raise HeliodError(-1, "%d bytes left over in a body" % (len(self.b) - self.o))


def _frame(op, rid, body, flags=0):
    size = FRAME_HDR + len(body)
    if size > MAX_FRAME:
        raise HeliodError(-13, "request larger than %d bytes" % MAX_FRAME)
    return struct.pack("<IHHI", size, op, flags, rid) + bytes(body)


def _post(w):
    # POST: no filters, no sends (PROTOCOL.md "POST")
    w.f32(0).f32(0).f32(0).f32(0)
    for _ in range(2):
        w.str("").f32(-144.0)


def _get_post(r):
    p = {"lp_hz": r.f32(), "hp_hz": r.f32(), "occlusion": r.f32(), "obstruction": r.f32()}
    p["sends"] = [(r.str(), r.f32()) for _ in range(2)]
    return p


def _enc_play(sound, gain_db=0.0, pan=0.0, pos=None, pitch=1.0, loop=False, priority=0,
              fade_in_ms=-1.0, min_distance=1.0, max_distance=100.0, rolloff=1.0,
              model="inverse", bus="", detached=False, paused=False, vel=(0, 0, 0),
              emitter=""):
    flags = (PLAY_LOOP if loop else 0) | (PLAY_3D if pos is not None else 0)
    flags |= (PLAY_DETACHED if detached else 0) | (PLAY_PAUSED if paused else 0)
    w = _W().str(sound).u32(flags).f32(gain_db).f32(pan).vec3(pos or (0, 0, 0))
    w.f32(pitch).i32(priority).f32(fade_in_ms).f32(min_distance).f32(max_distance)
    w.f32(rolloff).u8(MODELS[model]).str(bus)
    w.u32(0).u32(0).u32(0).f32(0.0)  # loop region: the whole sound, no crossfade
    w.vec3(vel).str(emitter).u32(0)
    _post(w)
    return w.b


def _enc_set(voice, gain_db=None, pan=None, pos=None, pitch=None, ramp_ms=0.0, seek_s=None,
             vel=None, pause=False, resume=False):
    mask = ((SET_GAIN if gain_db is not None else 0) | (SET_PAN if pan is not None else 0) |
            (SET_POS if pos is not None else 0) | (SET_PITCH if pitch is not None else 0) |
            (SET_SEEK if seek_s is not None else 0) | (SET_VEL if vel is not None else 0) |
            (SET_PAUSE if pause else 0) | (SET_RESUME if resume else 0))
    w = _W().u64(voice).u32(mask).f32(gain_db or 0.0).f32(pan or 0.0).vec3(pos or (0, 0, 0))
    w.f32(pitch or 1.0).f32(ramp_ms).f64(seek_s or 0.0).vec3(vel or (0, 0, 0))
    _post(w)
    return w.b


def _enc_listener(pos=None, forward=None, up=None, vel=None):
    mask = ((LST_POS if pos is not None else 0) | (LST_FWD if forward is not None else 0) |
            (LST_UP if up is not None else 0) | (LST_VEL if vel is not None else 0))
    return _W().u32(mask).vec3(pos or (0, 0, 0)).vec3(forward or (0, 0, -1)).vec3(
        up or (0, 1, 0)).vec3(vel or (0, 0, 0)).b


def _enc_subscribe(mask, meter_hz=0.0, profile_hz=0.0):
    w = _W().u32(mask).f32(meter_hz)
    if profile_hz:
        w.f32(profile_hz)  # optional on the wire: absent = the default rate
    return w.b


def _dec_list(r, entry):
    count, truncated = r.u16(), r.u8()
    if count > 1024 or truncated > 1:
        raise HeliodError(-1, "bad list head")
    return [entry(r) for _ in range(count)]


def _dec_sound(r):
    return {"name": r.str(), "frames": r.u32(), "channels": r.u16(), "source_rate": r.u32(),
            "flags": r.u32(), "playing": r.u32(), "owner": r.u32()}


def _dec_voice(r):
    v = {"voice": r.u64(), "sound": r.str(), "owner": r.u32(), "priority": r.i32(),
         "flags": r.u32()}
    st = r.u8()
    v["state"] = VOICE_STATES[st] if st < len(VOICE_STATES) else st
    v.update(gain_db=r.f32(), pan=r.f32(), pos=r.vec3(), pitch=r.f32(), bus=r.str(),
             cue=r.str(), category=r.str(), emitter=r.str(), audibility_db=r.f32(),
             position_s=r.f64())
    v["post"] = _get_post(r)
    return v


def _dec_level(r):
    return {"peak_db": r._take("<ff"), "peak_hold_db": r._take("<ff"), "rms_db": r._take("<ff")}


class Event:
    """One EVENT frame: .type ("ended", "meter", ...), .id (the failed
    request's for "error", else 0) and the type's fields as attributes."""

    def __init__(self, rid, body):
        r = _R(body)
        t = r.u16()
        self.id = rid
        self.type = EVENT_TYPES.get(t, t)
        if t == 1:
            self.req_op, self.status, self.message = r.u16(), r.i32(), r.str()
        elif t in (2, 4):
            self.voice, reason = r.u64(), r.u8()
            self.reason = END_REASONS[reason] if t == 2 and reason < len(END_REASONS) else reason
        elif t == 3:
            self.voice, self.time_ns = r.u64(), r.u64()
        elif t == 5:
            self.voice = r.u64()
        elif t in (6, 7):
            self.device, self.time_ns = r.str(), r.u64()
        elif t == 8:
            self.frame = r.u64()
            self.momentary, self.short_term, self.integrated, self.range = r._take("<ffff")
            self.master = _dec_level(r)
            self.buses = {}
            for _ in range(r.u8()):
                name = r.str()
                self.buses[name] = _dec_level(r)
        elif t == 20:
            self._profile(r)
        else:
            raise HeliodError(-1, "unknown event type %d" % t)
        r.done()

    def _profile(self, r):
        self.time_ns, self.period_us, self.callbacks = r.u64(), r.f32(), r.u32()
        self.load_now, self.load_peak, self.load_p99, self.load_max = r._take("<ffff")
        self.hist = list(r._take("<8I"))
        self.xruns, self.underruns = r.u64(), r.u64()
        self.voices_real, self.voices_virtual = r.u32(), r.u32()
        self.decode_load, self.streams = r.f32(), r.u16()
        self.stream = [(r.str(), r.f32()) for _ in range(r.u8())]
        self.master_peak_db, self.master_rms_db = r.f32(), r.f32()
        self.buses = {}
        for _ in range(r.u8()):
            name = r.str()
            self.buses[name] = {"peak_db": r.f32(), "peak_hold_db": r.f32(), "rms_db": r.f32(),
                                "real": r.u16(), "virtual": r.u16()}

    def __repr__(self):
        return "Event(%s)" % ", ".join("%s=%r" % kv for kv in sorted(vars(self).items()))


def _reply(body, op):
    """Checks a REPLY body's head; returns a reader over the op's reply body."""
    r = _R(body)
    req_op, status = r.u16(), r.i32()
    if req_op != op:
        raise HeliodError(-1, "reply to op %d where %d was asked" % (req_op, op))
    if status < 0:
        raise HeliodError(status, r.str())
    return r


def _hello_body(name, control):
    return _W().u16(PROTO_VERSION).str(name).u32(HELLO_CONTROL if control else 0).b


def _dec_hello(r):
    info = {"version": r.u16(), "rate": r.u32(), "period": r.u32(), "voices": r.u32(),
            "client_id": r.u32(), "server_version": r.str(), "flags": r.u32()}
    r.done()
    return info


# What each call sends and how its reply body is read: (op, decoder).
def _none(r):
    r.done()


def _u64(r):
    v = r.u64()
    r.done()
    return v


def _play_reply(r):
    voice, stolen = r.u64(), r.u64()
    r.done()
    return voice


def _count(r):
    n = r.u32()
    r.done()
    return n


def _sound_reply(r):
    s = _dec_sound(r)
    r.done()
    return s


def _stats_reply(r):
    out = dict(_dec_list(r, lambda r: (r.str(), r.f64())))
    r.done()
    return out


def _voices_reply(r):
    out = _dec_list(r, _dec_voice)
    r.done()
    return out


def _sounds_reply(r):
    out = _dec_list(r, _dec_sound)
    r.done()
    return out


class _Calls:
    """The requests, shared by Client and AsyncClient: each builds (op, body,
    decoder) and hands it to self._call."""

    def ping(self):
        return self._call("ping", b"", _u64)

    def load(self, name, path, stream=False, shared=False):
        path = os.path.abspath(path)  # the daemon takes absolute paths only
        flags = (LOAD_STREAM if stream else 0) | (LOAD_SHARED if shared else 0)
        return self._call("load", _W().str(name).str(path, 4095).u32(flags).b, _sound_reply)

    def unload(self, name):
        return self._call("unload", _W().str(name).b, _none)

    def sounds(self):
        return self._call("sounds", b"", _sounds_reply)

    def play(self, sound, **kw):
        """Plays a sound or a cue; returns the voice handle. Keywords: gain_db,
        pan, pos (x, y, z: makes it 3D), pitch, loop, priority, fade_in_ms,
        min_distance, max_distance, rolloff, model, bus, detached, paused,
        vel, emitter."""
        return self._call("play", _enc_play(sound, **kw), _play_reply)

    def stop(self, voice, fade_ms=-1.0):
        return self._call("stop", _W().u64(voice).f32(fade_ms).u8(0).b, _none)

    def stop_all(self, fade_ms=-1.0, everyone=False):
        return self._call("stop_all", _W().f32(fade_ms).u8(1 if everyone else 0).b, _count)

    def set(self, voice, **kw):
        """Changes a voice: gain_db, pan, pos, pitch, vel, seek_s, pause,
        resume, over ramp_ms."""
        return self._call("set", _enc_set(voice, **kw), _none)

    def listener(self, pos=None, forward=None, up=None, vel=None):
        return self._call("listener", _enc_listener(pos, forward, up, vel), _none)

    def stats(self, reset=False):
        """Every STATS key with its value, as a dict."""
        return self._call("stats", _W().u32(1 if reset else 0).b, _stats_reply)

    def voices(self):
        return self._call("voices", b"", _voices_reply)

    def subscribe(self, mask, meter_hz=0.0, profile_hz=0.0):
        """Which events this connection wants (SUB_* bits); replaces the last."""
        return self._call("subscribe", _enc_subscribe(mask, meter_hz, profile_hz), _none)


class Client(_Calls):
    """A blocking connection. Events that arrive while a call waits for its
    reply are kept for events()."""

    def __init__(self, socket=None, name="python", control=False, timeout=5.0):
        self.path = socket or default_socket()
        self.timeout = timeout
        self._s = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
        self._s.settimeout(timeout)
        try:
            self._s.connect(self.path)
        except OSError as e:
            self._s.close()
            raise HeliodError(-18, "%s: %s" % (self.path, e.strerror)) from None
        self._buf = bytearray()
        self._events = []
        self._id = 0
        self.info = self._request(OP["hello"], _hello_body(name, control), _dec_hello)

    def close(self):
        self._s.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _read_frame(self, timeout):
        """The next frame (op, id, body), or None after timeout seconds."""
        self._s.settimeout(timeout)
        while True:
            if len(self._buf) >= FRAME_HDR:
                size, op, _flags, rid = struct.unpack_from("<IHHI", self._buf)
                if size < FRAME_HDR or size > MAX_FRAME:
                    raise HeliodError(-1, "bad frame size %d" % size)
                if len(self._buf) >= size:
                    body = bytes(self._buf[FRAME_HDR:size])
                    del self._buf[:size]
                    return op, rid, body
            try:
                data = self._s.recv(65536)
            except _socket.timeout:
                return None
            if not data:
                raise HeliodError(-19, "the daemon closed the connection")
            self._buf += data

    def _request(self, op, body, decode):
        self._id = self._id % 0xFFFFFFFF + 1
        rid = self._id
        self._s.sendall(_frame(op, rid, body))
        deadline = time.monotonic() + self.timeout
        while True:
            left = deadline - time.monotonic()
            f = self._read_frame(max(left, 0.001)) if left > 0 else None
            if f is None:
                raise HeliodError(-22, "no reply within %.1f s" % self.timeout)
            fop, frid, fbody = f
            if fop == OP_EVENT:
                self._events.append(Event(frid, fbody))
            elif fop == OP_REPLY and frid == rid:
                return decode(_reply(fbody, op))

    def _call(self, name, body, decode):
        return self._request(OP[name], body, decode)

    def events(self, timeout=None, duration=None):
        """Yields events as they come; stops after timeout seconds without
        one (None: waits forever), or once duration seconds have passed."""
        end = time.monotonic() + duration if duration is not None else None
        while True:
            while self._events:
                yield self._events.pop(0)
            wait = timeout
            if end is not None:
                left = end - time.monotonic()
                if left <= 0:
                    return
                wait = left if wait is None else min(wait, left)
            f = self._read_frame(wait)
            if f is None:
                return
            if f[0] == OP_EVENT:
                self._events.append(Event(f[1], f[2]))


class AsyncClient(_Calls):
    """The same calls for asyncio: `c = await AsyncClient.connect(...)`, then
    `await c.play(...)`; events with `await c.next_event()`. Requests may be
    issued concurrently: replies are matched by id."""

    @classmethod
    async def connect(cls, socket=None, name="python", control=False, timeout=5.0):
        self = cls()
        self.path = socket or default_socket()
        self.timeout = timeout
        try:
            self._r, self._w = await asyncio.open_unix_connection(self.path)
        except OSError as e:
            raise HeliodError(-18, "%s: %s" % (self.path, e.strerror)) from None
        self._id = 0
        self._pending = {}
        self._events = asyncio.Queue()
        self._reader = asyncio.ensure_future(self._read_loop())
        self.info = await self._request(OP["hello"], _hello_body(name, control), _dec_hello)
        return self

    async def _read_loop(self):
        err = HeliodError(-19, "the daemon closed the connection")
        try:
            while True:
                hdr = await self._r.readexactly(FRAME_HDR)
                size, op, _flags, rid = struct.unpack("<IHHI", hdr)
                if size < FRAME_HDR or size > MAX_FRAME:
                    err = HeliodError(-1, "bad frame size %d" % size)
                    break
                body = await self._r.readexactly(size - FRAME_HDR)
                if op == OP_EVENT:
                    self._events.put_nowait(Event(rid, body))
                elif op == OP_REPLY and rid in self._pending:
                    self._pending.pop(rid).set_result(body)
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        for fut in self._pending.values():
            if not fut.done():
                fut.set_exception(err)
        self._pending.clear()
        self._events.put_nowait(None)  # wakes next_event(): the connection is gone

    async def _request(self, op, body, decode):
        self._id = self._id % 0xFFFFFFFF + 1
        rid = self._id
        fut = asyncio.get_running_loop().create_future()
        self._pending[rid] = fut
        self._w.write(_frame(op, rid, body))
        await self._w.drain()
        try:
            fbody = await asyncio.wait_for(fut, self.timeout)
        except asyncio.TimeoutError:
            self._pending.pop(rid, None)
            raise HeliodError(-22, "no reply within %.1f s" % self.timeout) from None
        return decode(_reply(fbody, op))

    def _call(self, name, body, decode):
        return self._request(OP[name], body, decode)

    async def next_event(self, timeout=None):
        """The next event, or None after timeout seconds or when the daemon went away."""
        try:
            return await asyncio.wait_for(self._events.get(), timeout)
        except asyncio.TimeoutError:
            return None

    async def close(self):
        self._reader.cancel()
        self._w.close()
        try:
            await self._w.wait_closed()
        except (ConnectionError, asyncio.CancelledError):
            pass
