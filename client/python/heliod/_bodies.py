"""_bodies - request bodies and reply decoders of proto/PROTOCOL.md, one
pair per layout, checked against proto/proto.c (hl_put_* / hl_get_*).
Enumerations travel as names ("shuffle", "steal-quietest") on the Python
side and as their u8 values on the wire: a value out of range would be a
protocol error (the daemon closes the connection), so it is refused here
with EINVAL before anything is sent."""

from ._wire import EINVAL, PROTO_MINOR, PROTO_VERSION, HeliodError, W, dec_list

# PLAY flags, SET mask, LISTENER mask, SUBSCRIBE mask, LOAD flags
PLAY_LOOP, PLAY_3D, PLAY_DETACHED, PLAY_PAUSED, PLAY_CUBIC = 0x1, 0x2, 0x4, 0x8, 0x10
PLAY_SINC, PLAY_LINEAR = 0x40, 0x80
INTERPS = {"linear": PLAY_LINEAR, "cubic": PLAY_CUBIC, "sinc": PLAY_SINC}


def _interp_flags(interp, cubic):
    """The interpolator's flag: interp "linear", "cubic" or "sinc" (None:
    the cue's, else the daemon's --interp); cubic=True is interp="cubic"."""
    if interp is None:
        return PLAY_CUBIC if cubic else 0
    if interp not in INTERPS:
        raise HeliodError(EINVAL, "interp: '%s' is not linear, cubic or sinc" % interp)
    return INTERPS[interp]


def _interp_name(flags):
    return ("sinc" if flags & PLAY_SINC else "cubic" if flags & PLAY_CUBIC else
            "linear" if flags & PLAY_LINEAR else None)
SET_GAIN, SET_PAN, SET_POS, SET_PITCH, SET_PAUSE, SET_RESUME, SET_SEEK, SET_VEL = (
    0x1, 0x2, 0x4, 0x8, 0x10, 0x20, 0x40, 0x80)
SET_LP, SET_HP, SET_OCCLUSION, SET_OBSTRUCTION, SET_SENDS = 0x100, 0x200, 0x400, 0x800, 0x1000
LST_POS, LST_FWD, LST_UP, LST_VEL = 0x1, 0x2, 0x4, 0x8
SUB_ENDED, SUB_STARTED, SUB_ALL, SUB_VIRTUAL, SUB_DEVICE, SUB_METER = (
    0x1, 0x2, 0x4, 0x8, 0x10, 0x20)
SUB_BANK, SUB_ZONES, SUB_PROFILE, SUB_STREAM = 0x40, 0x80, 0x100, 0x200
LOAD_STREAM, LOAD_SHARED, LOAD_PIN = 0x1, 0x2, 0x4
# PLAY `over` (cue plays: these fields replace the cue's)
OVER_PRIORITY, OVER_BUS, OVER_FADE_IN, OVER_DISTANCE, OVER_PAN, OVER_FILTER, OVER_SENDS = (
    0x1, 0x2, 0x4, 0x8, 0x10, 0x20, 0x40)
# BUS mask
BUS_GAIN, BUS_MUTE, BUS_CREATE, BUS_REMOVE, BUS_PARENT, BUS_SEND = 0x1, 0x2, 0x4, 0x8, 0x10, 0x20
# PAUSE scopes
PAUSE_MINE, PAUSE_EVERYONE, PAUSE_BUS, PAUSE_CATEGORY = 0, 1, 2, 3
EM_POS, EM_VEL, EM_DETACHED = 0x1, 0x2, 0x4
FXP_TYPE = 0x100

# enumerations, in wire order
MODELS = ("linear", "inverse", "exponential")
PICKS = ("random", "shuffle", "sequence")
OVERFLOWS = ("refuse", "stop-oldest", "fade-oldest", "steal-lowest-priority", "steal-quietest",
             "steal-farthest")
BEYONDS = ("virtual", "release", "clamp")
VIRTS = ("resume", "restart", "kill")
CURVES = ("linear", "equal-power", "log")
VOICE_STATES = ("playing", "stopping", "paused", "virtual", "vpaused")
END_REASONS = ("finished", "stopped", "stolen", "owner", "shutdown", "evicted", "distance",
               "emitter", "killed", "lifetime")
VIRT_REASONS = ("rank", "floor", "distance", "paused", "governed")
BANK_STATES = ("loading", "loaded", "failed", "unloading", "gone")
ZONE_STATES = ("out", "loading", "loaded")
FX_KINDS = (None, "eq", "comp", "reverb")
EQ_TYPES = ("lowpass", "highpass", "lowshelf", "highshelf", "peak")
REVERB_PRESETS = ("room", "hall", "cave", "outdoor")
FX_PARAMS = {"eq": ("freq", "q", "gain"),
             "comp": ("threshold", "ratio", "knee", "attack", "release", "makeup"),
             "reverb": ("rt60", "damping", "predelay", "size", "wet", "dry")}


def enum(names, v, what):
    """A name (or its index) of names as the wire's u8."""
    if isinstance(v, int) and not isinstance(v, bool) and 0 <= v < len(names):
        return v
    if isinstance(v, str) and v in names:
        return names.index(v)
    raise HeliodError(EINVAL, "%s: %r is not one of %s" % (what, v, ", ".join(
        n for n in names if n)))


def name(s, what="name", empty=False):
    """A name as PROTOCOL.md defines it (1..63 bytes of [A-Za-z0-9_.-]), or ""."""
    if not isinstance(s, str):
        raise HeliodError(EINVAL, "%s: a string is needed" % what)
    if empty and s == "":
        return s
    ok = 0 < len(s) <= 63 and all(c.isascii() and (c.isalnum() or c in "_.-") for c in s)
    if not ok:
        raise HeliodError(-15, "%s: invalid name %r" % (what, s))
    return s


# ---- the post stage (POST) ---------------------------------------------------

def put_post(w, lp_hz=0.0, hp_hz=0.0, occlusion=0.0, obstruction=0.0, sends=()):
    """POST: filters, occlusion and up to two sends [(bus, db), ...]."""
    sends = list(sends or ())
    if len(sends) > 2:
        raise HeliodError(EINVAL, "sends: at most 2")
    w.f32(lp_hz or 0.0).f32(hp_hz or 0.0).f32(occlusion or 0.0).f32(obstruction or 0.0)
    for i in range(2):
        bus, db = sends[i] if i < len(sends) else ("", -144.0)
        w.str(name(bus, "send", empty=True)).f32(db)


def get_post(r):
    p = {"lp_hz": r.f32(), "hp_hz": r.f32(), "occlusion": r.f32(), "obstruction": r.f32()}
    p["sends"] = [(r.str(), r.f32()) for _ in range(2)]
    return p


def _post_kw(kw):
    """Pops the post-stage keywords: (filter dict or None, sends or None)."""
    filt = {k: kw.pop(k) for k in ("lp_hz", "hp_hz", "occlusion", "obstruction") if k in kw}
    filt = {k: v for k, v in filt.items() if v is not None}
    sends = kw.pop("sends", None)
    return filt or None, sends


# ---- PLAY ------------------------------------------------------------------------

def enc_play(sound, gain_db=0.0, pan=None, pos=None, pitch=1.0, loop=False, priority=None,
             fade_in_ms=None, min_distance=None, max_distance=None, rolloff=None, model=None,
             bus=None, detached=False, paused=False, cubic=False, vel=(0, 0, 0), emitter="",
             interp=None,
             loop_start=0, loop_end=0, loop_count=0, loop_xfade_ms=0.0, over=0, **post):
    """PLAY. Fields left None take the plain defaults (pan 0, priority 0,
    fade-in -1, distances 1/100/1 inverse, bus "sfx", no filters or sends);
    for a cue, the ones given set their HL_OVER_* bit so they replace the
    cue's (gain adds to and pitch multiplies the cue's, flags are OR'd)."""
    filt, sends = _post_kw(post)
    if post:
        raise HeliodError(EINVAL, "play: unknown keyword %s" % ", ".join(sorted(post)))
    over = int(over)
    over |= OVER_PAN if pan is not None else 0
    over |= OVER_PRIORITY if priority is not None else 0
    over |= OVER_FADE_IN if fade_in_ms is not None else 0
    over |= OVER_BUS if bus is not None else 0
    dist = (min_distance, max_distance, rolloff, model)
    over |= OVER_DISTANCE if any(v is not None for v in dist) else 0
    over |= OVER_FILTER if filt else 0
    over |= OVER_SENDS if sends is not None else 0
    flags = (PLAY_LOOP if loop else 0) | (PLAY_3D if pos is not None else 0)
    flags |= (PLAY_DETACHED if detached else 0) | (PLAY_PAUSED if paused else 0)
    flags |= _interp_flags(interp, cubic)
    w = W().str(name(sound, "sound")).u32(flags).f32(gain_db).f32(pan or 0.0)
    w.vec3(pos or (0, 0, 0)).f32(pitch).i32(priority or 0)
    w.f32(-1.0 if fade_in_ms is None else fade_in_ms)
    w.f32(1.0 if min_distance is None else min_distance)
    w.f32(100.0 if max_distance is None else max_distance)
    w.f32(1.0 if rolloff is None else rolloff)
    w.u8(enum(MODELS, "inverse" if model is None else model, "model"))
    w.str(name(bus or "", "bus", empty=True))
    w.u32(loop_start).u32(loop_end).u32(loop_count).f32(loop_xfade_ms)
    w.vec3(vel).str(name(emitter or "", "emitter", empty=True)).u32(over)
    put_post(w, sends=sends, **(filt or {}))
    return w.b


def dec_play_reply(r):
    voice, _stolen = r.u64(), r.u64()
    r.done()
    return voice


# ---- STOP, SET, PAUSE, LISTENER -------------------------------------------------------

def enc_stop(voice, fade_ms=-1.0, curve=None):
    c = 0 if curve is None else enum(CURVES, curve, "curve") + 1  # HL_STOP_CURVE
    return W().u64(voice).f32(fade_ms).u8(c).b


def enc_set(voice, gain_db=None, pan=None, pos=None, pitch=None, ramp_ms=0.0, seek_s=None,
            vel=None, pause=False, resume=False, lp_hz=None, hp_hz=None, occlusion=None,
            obstruction=None, sends=None):
    mask = ((SET_GAIN if gain_db is not None else 0) | (SET_PAN if pan is not None else 0) |
            (SET_POS if pos is not None else 0) | (SET_PITCH if pitch is not None else 0) |
            (SET_SEEK if seek_s is not None else 0) | (SET_VEL if vel is not None else 0) |
            (SET_PAUSE if pause else 0) | (SET_RESUME if resume else 0) |
            (SET_LP if lp_hz is not None else 0) | (SET_HP if hp_hz is not None else 0) |
            (SET_OCCLUSION if occlusion is not None else 0) |
            (SET_OBSTRUCTION if obstruction is not None else 0) |
            (SET_SENDS if sends is not None else 0))
    w = W().u64(voice).u32(mask).f32(gain_db or 0.0).f32(pan or 0.0).vec3(pos or (0, 0, 0))
    w.f32(1.0 if pitch is None else pitch).f32(ramp_ms).f64(seek_s or 0.0)
    w.vec3(vel or (0, 0, 0))
    put_post(w, lp_hz, hp_hz, occlusion, obstruction, sends)
    return w.b


def enc_pause(pause, scope, group=""):
    if scope in (PAUSE_BUS, PAUSE_CATEGORY):
        group = name(group, "bus" if scope == PAUSE_BUS else "category")
    return W().u8(1 if pause else 0).u8(scope).str(group).b


def enc_listener(pos=None, forward=None, up=None, vel=None):
    mask = ((LST_POS if pos is not None else 0) | (LST_FWD if forward is not None else 0) |
            (LST_UP if up is not None else 0) | (LST_VEL if vel is not None else 0))
    return W().u32(mask).vec3(pos or (0, 0, 0)).vec3(forward or (0, 0, -1)).vec3(
        up or (0, 1, 0)).vec3(vel or (0, 0, 0)).b


def enc_subscribe(mask, meter_hz=0.0, profile_hz=0.0):
    w = W().u32(mask).f32(meter_hz)
    if profile_hz:
        w.f32(profile_hz)  # optional on the wire: absent = the default rate
    return w.b


# ---- simple replies -----------------------------------------------------------------

def dec_none(r):
    r.done()


def dec_u64(r):
    v = r.u64()
    r.done()
    return v


def dec_count(r):
    n = r.u32()
    r.done()
    return n


def dec_hello(r):
    info = {"version": r.u16(), "rate": r.u32(), "period": r.u32(), "voices": r.u32(),
            "client_id": r.u32(), "server_version": r.str(), "flags": r.u32()}
    # since 1.1: the daemon's minor (absent from a 1.0 daemon); we speak the lower
    info["minor"] = min(r.u16(), PROTO_MINOR) if r.left() else 0
    r.done()
    return info


def hello_body(client_name, control):
    # version (the major), name, flags, then since 1.1 the highest minor we speak
    return W().u16(PROTO_VERSION).str(client_name).u32(1 if control else 0).u16(PROTO_MINOR).b


# ---- sounds, voices, devices, stats ---------------------------------------------------

def get_sound(r):
    return {"name": r.str(), "frames": r.u32(), "channels": r.u16(), "source_rate": r.u32(),
            "flags": r.u32(), "playing": r.u32(), "owner": r.u32()}


def dec_sound(r):
    s = get_sound(r)
    r.done()
    return s


def enc_load_fd(sound, flags, size):
    """LOAD_FD: the upload's size; the descriptor goes with the frame (SCM_RIGHTS)."""
    return W().str(name(sound, "sound")).u32(flags).u64(size).b


def enc_load_data(sound, flags, total, offset, chunk):
    return W().str(name(sound, "sound")).u32(flags).u64(total).u64(offset).u32(
        len(chunk)).raw(chunk).b


def get_voice(r):
    v = {"voice": r.u64(), "sound": r.str(), "owner": r.u32(), "priority": r.i32(),
         "flags": r.u32(), "state": r.enum(VOICE_STATES)}
    v.update(gain_db=r.f32(), pan=r.f32(), pos=r.vec3(), pitch=r.f32(), bus=r.str(),
             cue=r.str(), category=r.str(), emitter=r.str(), audibility_db=r.f32(),
             position_s=r.f64())
    v["post"] = get_post(r)
    return v


def get_device(r):
    d = {"index": r.u32(), "name": r.str(), "hostapi": r.str(), "max_channels": r.u16(),
         "default_rate": r.f64()}
    f = r.u8()
    d.update(flags=f, default=bool(f & 1), current=bool(f & 2))
    return d


def dec_device_reply(r):
    d = {"driver": r.str(), "name": r.str(), "rate": r.u32(), "period": r.u32()}
    r.done()
    return d


def dec_stats(r):
    return dict(dec_list(r, lambda r: (r.str(), r.f64())))


def lister(entry):
    """A reply decoder for a list of entry()."""
    return lambda r: dec_list(r, entry)


# ---- cues, categories, emitters -----------------------------------------------------

def enc_cue(cue, sounds, pick="random", loop=False, spatial=False, cubic=False, interp=None,
            gain_db=0.0,
            gain_rand_db=0.0, pitch=1.0, pitch_rand_cents=0.0, bus="", category="", priority=0,
            pan=0.0, min_distance=1.0, max_distance=100.0, rolloff=1.0, model="inverse",
            fade_in_ms=-1.0, fade_out_ms=-1.0, fade_curve="linear", max_instances=0,
            overflow="refuse", min_interval_ms=0.0, beyond="virtual", virt="resume",
            doppler=1.0, lp_hz=0.0, hp_hz=0.0, occlusion=0.0, obstruction=0.0, sends=()):
    if isinstance(sounds, str):
        sounds = [sounds]
    if not 1 <= len(sounds) <= 16:
        raise HeliodError(EINVAL, "sounds: a cue needs 1 to 16 sounds")
    w = W().str(name(cue, "cue")).u8(len(sounds))
    for s in sounds:
        w.str(name(s, "sound"))
    flags = (PLAY_LOOP if loop else 0) | (PLAY_3D if spatial else 0) | _interp_flags(interp, cubic)
    w.u8(enum(PICKS, pick, "pick")).u32(flags).f32(gain_db).f32(gain_rand_db).f32(pitch)
    w.f32(pitch_rand_cents).str(name(bus, "bus", empty=True))
    w.str(name(category, "category", empty=True)).i32(priority).f32(pan).f32(min_distance)
    w.f32(max_distance).f32(rolloff).u8(enum(MODELS, model, "model")).f32(fade_in_ms)
    w.f32(fade_out_ms).u8(enum(CURVES, fade_curve, "fade_curve")).u32(max_instances)
    w.u8(enum(OVERFLOWS, overflow, "overflow")).f32(min_interval_ms)
    w.u8(enum(BEYONDS, beyond, "beyond")).u8(enum(VIRTS, virt, "virt")).f32(doppler)
    put_post(w, lp_hz, hp_hz, occlusion, obstruction, sends)
    return w.b


def enc_category(category, max_instances=0, overflow="refuse", fade_out_ms=-1.0,
                 fade_curve="linear"):
    return W().str(name(category, "category")).u32(max_instances).u8(
        enum(OVERFLOWS, overflow, "overflow")).f32(fade_out_ms).u8(
        enum(CURVES, fade_curve, "fade_curve")).b


def _get_cue(r):
    c = {"name": r.str()}
    n = r.u8()
    c["sounds"] = [r.str() for _ in range(n)]
    c["pick"] = r.enum(PICKS)
    flags = r.u32()
    c.update(flags=flags, loop=bool(flags & PLAY_LOOP), spatial=bool(flags & PLAY_3D),
             cubic=bool(flags & PLAY_CUBIC), interp=_interp_name(flags))
    c.update(gain_db=r.f32(), gain_rand_db=r.f32(), pitch=r.f32(), pitch_rand_cents=r.f32(),
             bus=r.str(), category=r.str(), priority=r.i32(), pan=r.f32(),
             min_distance=r.f32(), max_distance=r.f32(), rolloff=r.f32(), model=r.enum(MODELS),
             fade_in_ms=r.f32(), fade_out_ms=r.f32(), fade_curve=r.enum(CURVES),
             max_instances=r.u32(), overflow=r.enum(OVERFLOWS), min_interval_ms=r.f32(),
             beyond=r.enum(BEYONDS), virt=r.enum(VIRTS), doppler=r.f32())
    c["post"] = get_post(r)
    return c


def _get_category(r):
    return {"name": r.str(), "max_instances": r.u32(), "overflow": r.enum(OVERFLOWS),
            "fade_out_ms": r.f32(), "fade_curve": r.enum(CURVES)}


COUNTERS = ("plays", "refused_interval", "refused_distance", "refused_cue_limit",
            "refused_cat_limit", "refused_no_voice", "evicted_cue", "evicted_cat", "stolen",
            "virtualised")


def get_cue_info(r):
    kind = r.enum(("cue", "category"))
    e = _get_cue(r) if kind == "cue" else _get_category(r)
    e["kind"] = kind
    n = {k: r.u64() for k in COUNTERS}
    n.update(active=r.u32(), virtual_now=r.u32())
    e["counters"] = n
    return e


def dec_cues_load(r):
    v = (r.u32(), r.u32())
    r.done()
    return v


def enc_emitter(action, emitter, pos=None, vel=None, detached=False, ramp_ms=0.0,
                fade_ms=-1.0):
    mask = (EM_POS if pos is not None else 0) | (EM_VEL if vel is not None else 0)
    mask |= EM_DETACHED if detached else 0
    return W().u8(action).str(name(emitter, "emitter")).u32(mask).vec3(pos or (0, 0, 0)).vec3(
        vel or (0, 0, 0)).f32(ramp_ms).f32(fade_ms).b


# ---- the mixer graph: buses, effects, ducking, reverb zones --------------------------------

def enc_bus(bus, mask, gain_db=0.0, ramp_ms=0.0, mute=False, parent="", send="", send_db=0.0):
    if parent == "master":
        parent = ""  # "" is the master on the wire
    return W().str(name(bus, "bus")).u32(mask).f32(gain_db).f32(ramp_ms).u8(
        1 if mute else 0).str(name(parent, "parent", empty=True)).str(
        name(send, "send", empty=True)).f32(send_db).b


def get_bus_info(r):
    b = {"name": r.str(), "parent": r.str(), "gain_db": r.f32(), "mute": bool(r.enum((0, 1))),
         "fx": r.u8(), "voices": r.u32(), "sends": r.u32(), "duck_db": r.f32(),
         "path_gain_db": r.f32()}
    # the bus's own sends (BUS SEND), free slots left out
    b["bus_sends"] = [s for s in ((r.str(), r.f32()) for _ in range(4)) if s[0]]
    return b


def fx_parse(text):
    """"KIND --PARAM VALUE ..." as heliodctl and heliod.conf write an effect
    ("eq --type peak --freq 1000 --q 1 --gain -6", "reverb --preset cave
    --wet 0.4") into fx_add/fx_set keywords: {"kind": ..., "type": ...,
    "ramp_ms": ..., PARAM: value}."""
    words = text.split()
    if not words or words[0] not in FX_PARAMS:
        raise HeliodError(EINVAL, "effect %s: unknown kind (eq, comp, reverb)"
                          % (words[0] if words else ""))
    out = {"kind": words[0]}
    args = words[1:]
    if len(args) % 2:
        raise HeliodError(EINVAL, "effect: expected --NAME VALUE pairs")
    for key, val in zip(args[::2], args[1::2]):
        if not key.startswith("--"):
            raise HeliodError(EINVAL, "%s: expected --NAME VALUE" % key)
        key = key[2:]
        if key in ("type", "preset"):
            out["type"] = val
        elif key == "ramp":
            out["ramp_ms"] = float(val)
        else:
            try:
                out[key] = float(val)
            except ValueError:
                raise HeliodError(EINVAL, "--%s %s: not a number" % (key, val)) from None
    return out


def enc_fx(action, bus, index, kind=None, type=None, ramp_ms=0.0, **params):
    """FX: params by name (FX_PARAMS[kind]); the ones given set their mask bit."""
    w = W().u8(action).str(name(bus, "bus")).u32(index)
    if action == 2:  # remove: kind, type and parameters unused
        return w.u8(0).u8(0).u32(0).raw(bytes(32)).f32(0.0).b
    if kind not in FX_PARAMS:
        raise HeliodError(EINVAL, "kind: %r is not one of eq, comp, reverb" % (kind,))
    mask, p = 0, [0.0] * 8
    for k, v in params.items():
        if k not in FX_PARAMS[kind]:
            raise HeliodError(EINVAL, "%s: not a parameter of %s (%s)" % (
                k, kind, ", ".join(FX_PARAMS[kind])))
        i = FX_PARAMS[kind].index(k)
        p[i], mask = float(v), mask | (1 << i)
    t = 0
    if type is not None:
        if kind == "comp":
            raise HeliodError(EINVAL, "type: a compressor has no type")
        t = enum(EQ_TYPES if kind == "eq" else REVERB_PRESETS, type, "type")
        mask |= FXP_TYPE
    w.u8(FX_KINDS.index(kind)).u8(t).u32(mask)
    for v in p:
        w.f32(v)
    return w.f32(ramp_ms).b


def get_fx_info(r):
    f = {"bus": r.str(), "index": r.u32(), "kind": r.enum(FX_KINDS)}
    t = r.u8()
    names = EQ_TYPES if f["kind"] == "eq" else REVERB_PRESETS if f["kind"] == "reverb" else ()
    f["type"] = names[t] if t < len(names) else t
    p = r.take("<8f")
    f["params"] = dict(zip(FX_PARAMS.get(f["kind"], ()), p))
    return f


def enc_duck(bus, by, on, depth_db=9.0, threshold_db=-40.0, attack_ms=80.0, hold_ms=200.0,
             release_ms=600.0):
    return W().str(name(bus, "bus")).str(name(by, "by")).u8(1 if on else 0).f32(depth_db).f32(
        threshold_db).f32(attack_ms).f32(hold_ms).f32(release_ms).b


def get_duck_info(r):
    d = {"bus": r.str(), "by": r.str()}
    r.u8()  # on: always 1 in a list
    d.update(depth_db=r.f32(), threshold_db=r.f32(), attack_ms=r.f32(), hold_ms=r.f32(),
             release_ms=r.f32(), gain_db=r.f32())
    return d


def enc_rzone(action, zone, pos=(0, 0, 0), radius=0.0, fade=0.0, bus="", feed="",
              preset="hall"):
    return W().u8(action).str(name(zone, "zone")).vec3(pos).f32(radius).f32(fade).str(
        name(bus, "bus", empty=True)).str(name(feed, "feed", empty=True)).u8(
        enum(REVERB_PRESETS, preset, "preset")).b


def get_rzone_info(r):
    r.u8()  # action: 0 in a list
    return {"name": r.str(), "pos": r.vec3(), "radius": r.f32(), "fade": r.f32(),
            "bus": r.str(), "feed": r.str(), "preset": r.enum(REVERB_PRESETS),
            "weight": r.f32(), "send_db": r.f32()}


# ---- assets: banks and world zones --------------------------------------------------------

def get_bank_info(r):
    return {"name": r.str(), "path": r.str(), "state": r.enum(BANK_STATES), "sounds": r.u32(),
            "done": r.u32(), "failed": r.u32(), "bytes": r.u64(), "error": r.str()}


def dec_bank_info(r):
    b = get_bank_info(r)
    r.done()
    return b


def enc_zone(action, zone, bank="", pos=(0, 0, 0), radius=0.0):
    return W().u8(action).str(name(zone, "zone")).str(bank, 4095).vec3(pos).f32(radius).b


def get_zone_info(r):
    r.u8()  # action: 0 in a list
    return {"name": r.str(), "bank": r.str(), "pos": r.vec3(), "radius": r.f32(),
            "state": r.enum(ZONE_STATES), "bytes": r.u64(), "distance": r.f32()}


# ---- time ---------------------------------------------------------------------------------

def get_clock(r):
    return {"frame": r.u64(), "time_ns": r.u64(), "rate": r.u32(), "period": r.u32(),
            "output_latency_ns": r.u64()}


def dec_clock(r):
    c = get_clock(r)
    r.done()
    return c


def dec_start_frame(r):
    get_clock(r)
    f = r.u64()
    r.done()
    return f


def frame_at(clock, time_ns):
    """The engine frame due at CLOCK_MONOTONIC time time_ns (ns, as
    time.monotonic_ns()) by a clock() reading; times before it give its frame."""
    if time_ns <= clock["time_ns"]:
        return clock["frame"]
    return clock["frame"] + (time_ns - clock["time_ns"]) * clock["rate"] // 1000000000


def quantize(frame, grid, ref=0):
    """frame moved to the next multiple of grid frames counted from ref (a
    frame, e.g. voice_start_frame() of the playing music): heliodctl's
    --quantize / --quantize-ref. A frame at or before ref gives ref."""
    if grid <= 0:
        raise HeliodError(EINVAL, "quantize: the grid is a positive frame count")
    if frame <= ref:
        return ref
    return ref + (frame - ref + grid - 1) // grid * grid

