"""_wire - the wire codec of proto/PROTOCOL.md: constants, error codes,
little-endian writer and reader, frames. No I/O here."""

import os
import struct

PROTO_VERSION = 1           # the major (HELLO version); PROTOCOL.md, "Compatibility"
PROTO_MINOR = 2             # the highest minor spoken here (HELLO minor, since 1.1)
FRAME_HDR = 12
MAX_FRAME = 65536
MAX_NAME = 63
MAX_PATH = 4095
MAX_DEVNAME = 255
MAX_LIST = 1024
MAX_CHUNK = 60000           # LOAD_DATA bytes per frame (HL_MAX_CHUNK)
MAX_UPLOAD = 256 << 20      # LOAD_DATA file size (HL_MAX_UPLOAD)
BUNDLE_REQS = 64            # requests in one bundle (HL_BUNDLE_REQS)
FLAG_NOREPLY = 0x1
FLAG_AT = 0x2
HELLO_CONTROL = 0x1

# opcodes (proto/hl_proto.h HL_OP_MAP), by the Python call's name
OP = {"hello": 1, "ping": 2, "load": 3, "unload": 4, "sounds": 5, "play": 6, "stop": 7,
      "stop_all": 8, "set": 9, "listener": 10, "voices": 11, "devices": 12, "stats": 13,
      "subscribe": 14, "bus": 15, "pause": 16, "cue": 17, "category": 18, "cues": 19,
      "cues_load": 20, "emitter": 21, "device": 22, "buses": 23, "fx": 24, "fx_list": 25,
      "duck": 26, "ducks": 27, "rzone": 28, "rzones": 29, "bank": 30, "banks": 31,
      "zone": 32, "zones": 33, "load_data": 34, "load_fd": 35, "clock": 40, "bundle_begin": 41,
      "bundle_end": 42, "stream": 43, "param_def": 50, "param": 51, "params": 52,
      "bind": 53, "snapshot": 55, "snapshots": 56, "cone": 57, "atten": 58,
      "music": 63, "sheet_keys": 72}
OP_REPLY, OP_EVENT = 128, 129
# the requests HL_FLAG_AT schedules and a bundle may hold (hl_op_schedulable)
SCHEDULABLE = frozenset(("play", "stop", "set", "bus", "listener", "param", "snapshot", "music"))

# proto/defs/heliod_errors.h
ERRORS = {-1: "EPROTO", -2: "EVERSION", -3: "EBADOP", -4: "EINVAL", -5: "ENOSOUND",
          -6: "ENOVOICE", -7: "EEXIST", -8: "EBUSY", -9: "ENOVOICES", -10: "EFILE",
          -11: "EDECODE", -12: "EINUSE", -13: "ETOOBIG", -14: "ENOMEM", -15: "ENAME",
          -16: "ENOBUS", -17: "ENODEV", -18: "ECONNECT", -19: "ECLOSED", -20: "EHANDSHAKE",
          -21: "EIO", -22: "ETIMEDOUT", -23: "ESHUTDOWN", -24: "EINTERVAL", -25: "EDISTANCE",
          -26: "ECUELIMIT", -27: "ECATLIMIT", -28: "ENOCATEGORY", -29: "ENOEMITTER",
          -30: "EPERM", -31: "EQUOTA", -32: "EBUSINUSE", -33: "ENOFX", -34: "ELOADING",
          -35: "ECANCELED"}
ERR_MIN = min(ERRORS)
EPROTO, EINVAL, ENAME, ETOOBIG, ECONNECT, ECLOSED, ETIMEDOUT = -1, -4, -15, -13, -18, -19, -22


class HeliodError(Exception):
    """A failed request: code (negative), name ("ENOSOUND") and the daemon's message."""

    def __init__(self, code, message="", daemon=False):
        self.code = code
        self.name = ERRORS.get(code, "E%d" % code)
        self.message = message
        self.daemon = daemon  # the daemon's reply said so (not a local check)
        super().__init__("%s: %s" % (self.name, message) if message else self.name)


def default_socket():
    """The path libheliod and heliod use: $HELIOD_SOCKET, else
    $XDG_RUNTIME_DIR/heliod/heliod.sock, else /tmp/heliod-$UID/heliod.sock."""
    if os.environ.get("HELIOD_SOCKET"):
        return os.environ["HELIOD_SOCKET"]
    if os.environ.get("XDG_RUNTIME_DIR"):
        return os.path.join(os.environ["XDG_RUNTIME_DIR"], "heliod", "heliod.sock")
    return "/tmp/heliod-%d/heliod.sock" % os.getuid()


class W:
    """A body being written (little-endian, PROTOCOL.md "Encoding")."""

    def __init__(self):
        self.b = bytearray()

    def _put(self, fmt, *v):
        try:
            self.b += struct.pack(fmt, *v)
        except struct.error as e:
            raise HeliodError(EINVAL, "a value does not fit its field: %s" % e) from None
        return self

    def u8(self, v):
        return self._put("<B", v)

    def u16(self, v):
        return self._put("<H", v)

    def u32(self, v):
        return self._put("<I", v)

    def i32(self, v):
        return self._put("<i", v)

    def u64(self, v):
        return self._put("<Q", v)

    def f32(self, v):
        return self._put("<f", v)

    def f64(self, v):
        return self._put("<d", v)

    def vec3(self, v):
        x, y, z = v
        return self._put("<fff", x, y, z)

    def str(self, s, limit=MAX_NAME):
        data = s.encode()
        if len(data) > limit or b"\0" in data:
            raise HeliodError(EINVAL, "string longer than %d bytes or with a NUL" % limit)
        self.b += struct.pack("<H", len(data)) + data
        return self

    def raw(self, data):
        self.b += data
        return self


class R:
    """A body being read; every body must be consumed exactly."""

    def __init__(self, b):
        self.b, self.o = b, 0

    def take(self, fmt):
        n = struct.calcsize(fmt)
        if self.o + n > len(self.b):
            raise HeliodError(EPROTO, "short body")
        v = struct.unpack_from(fmt, self.b, self.o)
        self.o += n
        return v

    def u8(self):
        return self.take("<B")[0]

    def u16(self):
        return self.take("<H")[0]

    def u32(self):
        return self.take("<I")[0]

    def i32(self):
        return self.take("<i")[0]

    def u64(self):
        return self.take("<Q")[0]

    def f32(self):
        return self.take("<f")[0]

    def f64(self):
        return self.take("<d")[0]

    def vec3(self):
        return self.take("<fff")

    def enum(self, names):
        """A u8 naming one of names (EPROTO beyond)."""
        v = self.u8()
        if v >= len(names):
            raise HeliodError(EPROTO, "enum value %d out of range" % v)
        return names[v]

    def str(self):
        n = self.u16()
        if self.o + n > len(self.b):
            raise HeliodError(EPROTO, "short string")
        s = bytes(self.b[self.o:self.o + n]).decode(errors="replace")
        self.o += n
        return s

    def left(self):
        return len(self.b) - self.o

    def done(self):
        if self.o != len(self.b):
            raise HeliodError(EPROTO, "%d bytes left over in a body" % (len(self.b) - self.o))


def frame(op, rid, body, flags=0):
    size = FRAME_HDR + len(body)
    if size > MAX_FRAME:
        raise HeliodError(ETOOBIG, "request larger than %d bytes" % MAX_FRAME)
    return struct.pack("<IHHI", size, op, flags, rid) + bytes(body)


def reply_reader(body, op, flags):
    """Checks a REPLY body's head; returns (reader over the op's reply body,
    late_frames or None). A scheduled request's reply (HL_FLAG_AT) ends with
    a u64: how many frames late the daemon got it."""
    late = None
    if flags & FLAG_AT:
        if len(body) < 6 + 8:
            raise HeliodError(EPROTO, "scheduled reply without its late-frames trailer")
        late = struct.unpack_from("<Q", body, len(body) - 8)[0]
        body = body[:-8]
    r = R(body)
    req_op, status = r.u16(), r.i32()
    if req_op != op:
        raise HeliodError(EPROTO, "reply to op %d where %d was asked" % (req_op, op))
    if status > 0 or status < ERR_MIN:
        raise HeliodError(EPROTO, "reply status %d" % status)
    if status < 0:
        raise HeliodError(status, r.str(), daemon=True)
    return r, late


def refused_as_1_0(e):
    """A daemon of protocol 1.0 (commit 4550bf8) reads HELLO to its 1.0 end and
    answers a longer body (our minor) EPROTO, then closes: dial again with a
    1.0 HELLO (hello_body(..., minor=0))."""
    return e.code == EPROTO and e.daemon


def dec_list(r, entry):
    """A list reply (u16 count, u8 truncated, entries) into a Python list."""
    count, truncated = r.u16(), r.u8()
    if count > MAX_LIST or truncated > 1:
        raise HeliodError(EPROTO, "bad list head")
    out = [entry(r) for _ in range(count)]
    r.done()
    return out
