"""_codec - message bodies written and read from the schema's tables
(_schema.MESSAGES), as proto/schema.c does in C: fields in wire order, each
by its KIND; a field added after 1.0 is optional at the end of a body (absent:
its DEFAULT) and left off when it and every later one hold their default."""

from ._schema import MESSAGES
from ._wire import EPROTO, ERR_MIN, PROTO_MINOR, PROTO_VERSION, HeliodError, W

V1_0 = 0x0100
_PUT = {"U8": W.u8, "ENUM8": W.u8, "FLAGS8": W.u8, "U16": W.u16, "COUNT16": W.u16,
        "MINOR": W.u16, "U32": W.u32, "FLAGS32": W.u32, "I32": W.i32, "STATUS": W.i32,
        "U64": W.u64, "F32": W.f32, "F32OPT": W.f32, "F64": W.f64}
_GET = {"U8": "<B", "ENUM8": "<B", "FLAGS8": "<B", "U16": "<H", "COUNT16": "<H",
        "MINOR": "<H", "U32": "<I", "FLAGS32": "<I", "I32": "<i", "STATUS": "<i", "U64": "<Q",
        "F32": "<f", "F32OPT": "<f", "F64": "<d"}


def _default(kind, arg, sub, d):
    if kind == "STR":
        return ""
    if kind == "VEC3":
        return (0.0, 0.0, 0.0)
    if kind == "F32N":
        return (0.0,) * int(arg)
    if kind == "SENDS":
        return [("", float(d))] * int(arg)
    if kind == "NSTR":
        return []
    if kind == "SUB":
        return {}
    if kind == "BLOB":
        return b""
    return d


def put(w, msg, values):
    """Appends msg's body to W w; values by field name (absent: the default)."""
    end = None
    for name, kind, arg, sub, d, since in MESSAGES[msg]:
        v = values.get(name)
        if v is None:
            v = _default(kind, arg, sub, d)
        if kind == "STR":
            w.str(v, int(arg))
        elif kind == "VEC3":
            w.vec3(v)
        elif kind == "F32N":
            if len(v) != int(arg):
                raise HeliodError(-4, "%s.%s: %d numbers, not %d" % (msg, name, len(v), arg))
            for x in v:
                w.f32(x)
        elif kind == "SENDS":
            v = list(v) + [("", 0.0)] * (int(arg) - len(v))
            for bus, db in v:
                w.str(bus).f32(db)
        elif kind == "NSTR":
            w.u8(len(v))
            for s in v:
                w.str(s)
        elif kind == "SUB":
            put(w, sub, v)
        elif kind == "BLOB":
            w.raw(v)
        elif kind == "F32OPT":
            if v != d:
                w.f32(v)
        else:
            _PUT[kind](w, v)
        if since == V1_0 or v != _default(kind, arg, sub, d):  # "" is a STR's default
            end = len(w.b)
    if end is not None:
        del w.b[end:]  # the trailing later fields at their default: an older peer's body
    return w


def encode(msg, **values):
    """msg's body (bytes) from its fields by name."""
    return put(W(), msg, values).b


def get(r, msg):
    """msg's fields read from R r, by name in wire order (a dict); EPROTO for
    a value outside its field (an enumeration, flag bits, a count)."""
    out = {}
    fields = MESSAGES[msg]
    for i, (name, kind, arg, sub, d, since) in enumerate(fields):
        if since != V1_0 and r.left() == 0:
            for n2, k2, a2, s2, d2, _ in fields[i:]:  # an older peer's body
                out[n2] = _default(k2, a2, s2, d2)
            break
        if kind == "STR":
            out[name] = r.str()
        elif kind == "VEC3":
            out[name] = r.vec3()
        elif kind == "F32N":
            out[name] = r.take("<%df" % int(arg))
        elif kind == "SENDS":
            out[name] = [(r.str(), r.f32()) for _ in range(int(arg))]
        elif kind == "NSTR":
            n = r.u8()
            if not 1 <= n <= arg:
                raise HeliodError(EPROTO, "%s.%s: %d strings" % (msg, name, n))
            out[name] = [r.str() for _ in range(n)]
        elif kind == "SUB":
            out[name] = get(r, sub)
        elif kind == "BLOB":
            out[name] = bytes(r.b[r.o:])
            r.o = len(r.b)
        elif kind == "F32OPT":
            out[name] = r.f32() if r.left() >= 4 else d
        else:
            v = out[name] = r.take(_GET[kind])[0]
            if ((kind in ("ENUM8", "COUNT16") and v > arg) or
                    (kind in ("FLAGS8", "FLAGS32") and v & ~int(arg)) or
                    (kind == "STATUS" and (v > 0 or v < ERR_MIN)) or (kind == "MINOR" and v == 0)):
                raise HeliodError(EPROTO, "%s.%s: %d is outside the field" % (msg, name, v))
            if kind == "MINOR" and out.get("version") == PROTO_VERSION and v > PROTO_MINOR:
                r.o = len(r.b)  # a later minor's fields follow: not ours to read
                break
    return out


def decode(r, msg):
    """get() of a whole body: nothing may be left."""
    out = get(r, msg)
    r.done()
    return out
