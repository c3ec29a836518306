"""_bodies - the calls' request bodies and reply decoders. The layouts are
the schema's (_schema.MESSAGES, generated from proto/hl_schema.h; written
and read by _codec); what stays here is what no table says: the Python
arguments and their defaults (None: the schema's default), the flag bits
an argument sets, names checked before anything is sent, enumerations as
names ("shuffle", "steal-quietest") on the Python side (a value out of range
would be a protocol error, so it is refused here with EINVAL), and replies
as the dicts the calls return."""

from ._codec import decode, encode, get
# the flag bits and enumeration names (re-exported: _calls and the package use them too)
from ._schema import (BEYONDS, BUS_CREATE, BUS_GAIN, BUS_MUTE, BUS_PARENT, BUS_REMOVE, BUS_SEND,
                      CURVES, EM_DETACHED, EM_POS, EM_VEL, FXP_TYPE, LOAD_COMPRESSED, LOAD_PIN,
                      LOAD_SHARED, LOAD_STREAM, LST_FWD, LST_POS, LST_UP, LST_VEL, MODELS,
                      OVER_BUS, OVER_DISTANCE, OVER_FADE_IN, OVER_FILTER, OVER_PAN, OVER_PRIORITY,
                      OVER_SENDS, OVERFLOWS, PAUSE_BUS, PAUSE_CATEGORY, PAUSE_EVERYONE,
                      PAUSE_MINE, PICKS, PLAY_3D, PLAY_CUBIC, PLAY_DETACHED, PLAY_LINEAR,
                      PLAY_LOOP, PLAY_PAUSED, PLAY_SINC, SET_GAIN, SET_HP, SET_LP,
                      SET_OBSTRUCTION, SET_OCCLUSION, SET_PAN, SET_PAUSE, SET_PITCH, SET_POS,
                      SET_RESUME, SET_SEEK, SET_SENDS, SET_VEL, SET_LFE, SET_LOOPS, SUB_ALL, SUB_BANK,
                      SUB_DEVICE, SUB_ENDED, SUB_METER, SUB_MUSIC, SUB_PROFILE, SUB_STARTED,
                      SUB_STREAM, SUB_VIRTUAL, SUB_ZONES, VIRTS)
from ._wire import EINVAL, PROTO_MINOR, PROTO_VERSION, HeliodError, dec_list

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


# names of the enumerations the schema has no names for, in wire order
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
NO_SEND_DB = -144.0  # an empty send slot's level


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

def post(lp_hz=0.0, hp_hz=0.0, occlusion=0.0, obstruction=0.0, sends=()):
    """POST's fields: filters, occlusion and up to two sends [(bus, db), ...]."""
    sends = list(sends or ())
    if len(sends) > 2:
        raise HeliodError(EINVAL, "sends: at most 2")
    sends = [(name(bus, "send", empty=True), db) for bus, db in sends]
    return {"lp_hz": lp_hz or 0.0, "hp_hz": hp_hz or 0.0, "occlusion": occlusion or 0.0,
            "obstruction": obstruction or 0.0,
            "send": sends + [("", NO_SEND_DB)] * (2 - len(sends))}


def _post_out(p):
    """A decoded POST as the calls return it (its sends under "sends")."""
    p["sends"] = p.pop("send")
    return p


def _post_kw(kw):
    """Pops the post-stage keywords: (filter dict or None, sends or None)."""
    filt = {k: kw.pop(k) for k in ("lp_hz", "hp_hz", "occlusion", "obstruction") if k in kw}
    filt = {k: v for k, v in filt.items() if v is not None}
    sends = kw.pop("sends", None)
    return filt or None, sends


def _names(d, **enums):
    """Enumeration fields of a decoded dict as their names."""
    for field, names in enums.items():
        if d[field] >= len(names):
            raise HeliodError(-1, "%s: %d out of range" % (field, d[field]))
        d[field] = names[d[field]]
    return d


# ---- PLAY ------------------------------------------------------------------------

def enc_play(sound, gain_db=0.0, pan=None, pos=None, pitch=1.0, loop=False, priority=None,
             fade_in_ms=None, min_distance=None, max_distance=None, rolloff=None, model=None,
             bus=None, detached=False, paused=False, cubic=False, vel=(0, 0, 0), emitter="",
             interp=None,
             loop_start=0, loop_end=0, loop_count=0, loop_xfade_ms=0.0, over=0, on=None, of=0,
             lfe=0.0, **kw):
    """PLAY. Fields left None take the plain defaults (pan 0, priority 0,
    fade-in -1, distances 1/100/1 inverse, bus "sfx", no filters or sends);
    for a cue, the ones given set their HL_OVER_* bit so they replace the
    cue's (gain adds to and pitch multiplies the cue's, flags are OR'd).
    on="beat"|"bar" with of=VOICE: a stinger, started on the next beat or bar
    of music voice VOICE (protocol 1.1). lfe: the LFE send, linear [0, 4]
    (protocol 1.1; 0, the default, leaves the field out)."""
    filt, sends = _post_kw(kw)
    if kw:
        raise HeliodError(EINVAL, "play: unknown keyword %s" % ", ".join(sorted(kw)))
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
    return encode("play", sound=name(sound, "sound"), flags=flags, gain_db=gain_db, pan=pan,
                  pos=pos, pitch=pitch, priority=priority, fade_in_ms=fade_in_ms,
                  min_distance=min_distance, max_distance=max_distance, rolloff=rolloff,
                  model=None if model is None else enum(MODELS, model, "model"),
                  bus=name(bus or "", "bus", empty=True), loop_start=loop_start,
                  loop_end=loop_end, loop_count=loop_count, loop_xfade_ms=loop_xfade_ms,
                  vel=vel, emitter=name(emitter or "", "emitter", empty=True), over=over,
                  post=post(sends=sends, **(filt or {})), **_sync(on, of, lfe))


def _sync(on, of, lfe=0.0):
    """PLAY's 1.1 fields (stinger, LFE send), left out (a 1.0 body) when not asked for."""
    if lfe:
        return dict(_sync(on, of) or {"sync_on": 0, "sync_voice": 0}, lfe=float(lfe))
    if on is None and not of:
        return {}
    if on not in ("beat", "bar") or not of:
        raise HeliodError(EINVAL, "play: on='beat' or 'bar' and of=VOICE go together")
    return {"sync_on": 1 if on == "beat" else 2, "sync_voice": int(of)}


def dec_play_reply(r):
    return decode(r, "play_reply")["voice"]


# ---- STOP, SET, PAUSE, LISTENER -------------------------------------------------------

def enc_stop(voice, fade_ms=-1.0, curve=None):
    c = 0 if curve is None else enum(CURVES, curve, "curve") + 1  # HL_STOP_CURVE
    return encode("stop", voice=voice, fade_ms=fade_ms, curve=c)


def enc_set(voice, gain_db=None, pan=None, pos=None, pitch=None, ramp_ms=0.0, seek_s=None,
            vel=None, pause=False, resume=False, lp_hz=None, hp_hz=None, occlusion=None,
            obstruction=None, sends=None, lfe=None, loops=None):
    mask = ((SET_GAIN if gain_db is not None else 0) | (SET_PAN if pan is not None else 0) |
            (SET_POS if pos is not None else 0) | (SET_PITCH if pitch is not None else 0) |
            (SET_SEEK if seek_s is not None else 0) | (SET_VEL if vel is not None else 0) |
            (SET_PAUSE if pause else 0) | (SET_RESUME if resume else 0) |
            (SET_LP if lp_hz is not None else 0) | (SET_HP if hp_hz is not None else 0) |
            (SET_OCCLUSION if occlusion is not None else 0) |
            (SET_OBSTRUCTION if obstruction is not None else 0) |
            (SET_SENDS if sends is not None else 0) | (SET_LFE if lfe is not None else 0) |
            (SET_LOOPS if loops is not None else 0))
    return encode("set", voice=voice, mask=mask, gain_db=gain_db, pan=pan, pos=pos,
                  pitch=pitch, ramp_ms=ramp_ms, seek_s=seek_s, vel=vel,
                  post=post(lp_hz, hp_hz, occlusion, obstruction, sends), lfe=lfe,
                  loops=loops)


def enc_pause(pause, scope, group=""):
    if scope in (PAUSE_BUS, PAUSE_CATEGORY):
        group = name(group, "bus" if scope == PAUSE_BUS else "category")
    return encode("pause", pause=1 if pause else 0, scope=scope, group=group)


def enc_listener(pos=None, forward=None, up=None, vel=None, index=0, off=False, weight=None):
    mask = ((LST_POS if pos is not None else 0) | (LST_FWD if forward is not None else 0) |
            (LST_UP if up is not None else 0) | (LST_VEL if vel is not None else 0))
    # index, off and weight (protocol 1.1) are left off the wire at their defaults;
    # weight "nearest" is -1 on the wire (back to the nearest rule)
    w = -1.0 if weight == "nearest" else float(weight or 0.0)
    return encode("listener", mask=mask, pos=pos, fwd=forward or (0, 0, -1), up=up or (0, 1, 0),
                  vel=vel, index=index, off=1 if off else 0, weight=w or None)


def enc_subscribe(mask, meter_hz=0.0, profile_hz=0.0):
    # profile_hz is optional on the wire: left off at its default (the daemon's rate)
    return encode("subscribe", mask=mask, meter_hz=meter_hz, profile_hz=profile_hz or None)


def enc_stop_all(fade_ms, everyone):
    return encode("stop_all", fade_ms=fade_ms, scope=1 if everyone else 0)


def enc_load(sound, path, flags, offset=0, length=0):
    """LOAD; offset and length (protocol 1.1) name a range of a pack file."""
    return encode("load", name=name(sound, "sound"), path=path, flags=flags, offset=offset,
                  length=length)


def enc_name(s, what):
    """NAME: a sound, bus ... named by a valid name ("" allowed for a bus: every bus)."""
    return encode("name", name=name(s, what, empty=what == "bus"))


# ---- simple replies -----------------------------------------------------------------

def dec_none(r):
    r.done()


def dec_u64(r):
    v = r.u64()
    r.done()
    return v


def dec_count(r):
    return decode(r, "count_reply")["count"]


def dec_hello(r):
    info = decode(r, "hello_reply")
    # since 1.1: the daemon's minor (absent from a 1.0 daemon: 0); we speak the lower
    info["minor"] = min(info["minor"], PROTO_MINOR)
    return info


def hello_body(client_name, control, minor=PROTO_MINOR):
    # minor 0 (the default) is left off: the 1.0 body, for a daemon of protocol 1.0
    return encode("hello", version=PROTO_VERSION, client_name=client_name,
                  flags=1 if control else 0, minor=minor)


# ---- sounds, voices, devices, stats ---------------------------------------------------

def get_sound(r):
    return get(r, "sound_info")


def dec_sound(r):
    return decode(r, "sound_info")


def enc_load_fd(sound, flags, size):
    """LOAD_FD: the upload's size; the descriptor goes with the frame (SCM_RIGHTS)."""
    return encode("load_fd", name=name(sound, "sound"), flags=flags, size=size)


def enc_load_data(sound, flags, total, offset, chunk):
    return encode("load_data", name=name(sound, "sound"), flags=flags, total=total,
                  offset=offset, len=len(chunk), data=bytes(chunk))


def get_voice(r):
    v = _names(get(r, "voice_info"), state=VOICE_STATES)
    _post_out(v["post"])
    return v


def get_device(r):
    d = get(r, "device_info")
    d.update(default=bool(d["flags"] & 1), current=bool(d["flags"] & 2))
    return d


def dec_device_reply(r):
    return decode(r, "device_reply")


def dec_stats(r):
    return dict(dec_list(r, lambda r: tuple(get(r, "stat").values())))


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
    flags = (PLAY_LOOP if loop else 0) | (PLAY_3D if spatial else 0) | _interp_flags(interp, cubic)
    return encode("cue", name=name(cue, "cue"), sounds=[name(s, "sound") for s in sounds],
                  pick=enum(PICKS, pick, "pick"), flags=flags, gain_db=gain_db,
                  gain_rand_db=gain_rand_db, pitch=pitch, pitch_rand_cents=pitch_rand_cents,
                  bus=name(bus, "bus", empty=True), category=name(category, "category", empty=True),
                  priority=priority, pan=pan, min_distance=min_distance,
                  max_distance=max_distance, rolloff=rolloff, model=enum(MODELS, model, "model"),
                  fade_in_ms=fade_in_ms, fade_out_ms=fade_out_ms,
                  fade_curve=enum(CURVES, fade_curve, "fade_curve"),
                  max_instances=max_instances, overflow=enum(OVERFLOWS, overflow, "overflow"),
                  min_interval_ms=min_interval_ms, beyond=enum(BEYONDS, beyond, "beyond"),
                  virt=enum(VIRTS, virt, "virt"), doppler=doppler,
                  post=post(lp_hz, hp_hz, occlusion, obstruction, sends))


def enc_category(category, max_instances=0, overflow="refuse", fade_out_ms=-1.0,
                 fade_curve="linear"):
    return encode("category", name=name(category, "category"), max_instances=max_instances,
                  overflow=enum(OVERFLOWS, overflow, "overflow"), fade_out_ms=fade_out_ms,
                  fade_curve=enum(CURVES, fade_curve, "fade_curve"))


def _get_cue(r):
    c = _names(get(r, "cue"), pick=PICKS, model=MODELS, fade_curve=CURVES, overflow=OVERFLOWS,
               beyond=BEYONDS, virt=VIRTS)
    flags = c["flags"]
    c.update(loop=bool(flags & PLAY_LOOP), spatial=bool(flags & PLAY_3D),
             cubic=bool(flags & PLAY_CUBIC), interp=_interp_name(flags))
    _post_out(c["post"])
    return c


def _get_category(r):
    return _names(get(r, "category"), overflow=OVERFLOWS, fade_curve=CURVES)


def get_cue_info(r):
    kind = r.enum(("cue", "category"))
    e = _get_cue(r) if kind == "cue" else _get_category(r)
    e["kind"] = kind
    e["counters"] = get(r, "cue_counters")
    return e


def dec_cues_load(r):
    d = decode(r, "cues_load_reply")
    return d["cues"], d["categories"]


def enc_emitter(action, emitter, pos=None, vel=None, detached=False, ramp_ms=0.0,
                fade_ms=-1.0):
    mask = (EM_POS if pos is not None else 0) | (EM_VEL if vel is not None else 0)
    mask |= EM_DETACHED if detached else 0
    return encode("emitter", action=action, name=name(emitter, "emitter"), mask=mask, pos=pos,
                  vel=vel, ramp_ms=ramp_ms, fade_ms=fade_ms)


# ---- game parameters ---------------------------------------------------------------------

PROPS = ("gain", "pitch", "lp", "hp", "occlusion", "send", "switch", "blend", "bus-gain", "fx",
         "snapshot")
SHAPES = ("linear", "exp", "log", "scurve")


def enc_param_def(param, lo, hi, default, seek):
    return encode("param_def", name=name(param, "parameter"), min=lo, max=hi, **{"def": default},
                  seek=seek)


def enc_param(param, value, emitter=None, voice=None):
    if emitter is not None and voice is not None:
        raise HeliodError(EINVAL, "param: emitter and voice exclude each other")
    scope = 1 if emitter is not None else 2 if voice is not None else 0
    return encode("param", name=name(param, "parameter"), scope=scope,
                  emitter=name(emitter, "emitter") if emitter is not None else "",
                  voice=voice or 0, value=value)


def enc_bind(cue, param, prop, points=(), index=0, clear=False, fxp=0):
    points = list(points)
    if len(points) > 16:
        raise HeliodError(EINVAL, "npoints: a curve has at most 16 points")
    choice = prop in ("switch", "blend")
    xs, ys, shapes = [0.0] * 16, [0.0] * 16, 0
    for i, p in enumerate(points):
        if choice:
            xs[i] = float(p)
            continue
        xs[i], ys[i] = float(p[0]), float(p[1])
        if len(p) > 2 and i + 1 < len(points):
            shapes |= enum(SHAPES, p[2], "shape") << (2 * i)
    return encode("bind", action=1 if clear else 0, cue=name(cue, "cue"), fxp=fxp,
                  param="" if clear else name(param, "parameter"),
                  prop=enum(PROPS, prop, "prop"), index=index, npoints=len(points), x=xs, y=ys,
                  shapes=shapes)


def get_param_info(r):
    return get(r, "param_info")


# ---- the mixer graph: buses, effects, ducking, reverb zones --------------------------------

def enc_bus(bus, mask, gain_db=0.0, ramp_ms=0.0, mute=False, parent="", send="", send_db=0.0):
    if parent == "master":
        parent = ""  # "" is the master on the wire
    return encode("bus", name=name(bus, "bus"), mask=mask, gain_db=gain_db, ramp_ms=ramp_ms,
                  mute=1 if mute else 0, parent=name(parent, "parent", empty=True),
                  send=name(send, "send", empty=True), send_db=send_db)


def get_bus_info(r):
    b = get(r, "bus_info")
    b["mute"] = bool(b["mute"])
    # the bus's own sends (BUS SEND), free slots left out
    b["bus_sends"] = [s for s in b.pop("send") if s[0]]
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
    if action == 2:  # remove: kind, type and parameters unused
        return encode("fx_req", action=action, bus=name(bus, "bus"), index=index)
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
    return encode("fx_req", action=action, bus=name(bus, "bus"), index=index,
                  kind=FX_KINDS.index(kind), type=t, mask=mask, p=p, ramp_ms=ramp_ms)


def get_fx_info(r):
    f = _names(get(r, "fx_info"), kind=FX_KINDS)
    names = EQ_TYPES if f["kind"] == "eq" else REVERB_PRESETS if f["kind"] == "reverb" else ()
    f["type"] = names[f["type"]] if f["type"] < len(names) else f["type"]
    f["params"] = dict(zip(FX_PARAMS.get(f["kind"], ()), f.pop("p")))
    return f


def enc_duck(bus, by, on, depth_db=9.0, threshold_db=-40.0, attack_ms=80.0, hold_ms=200.0,
             release_ms=600.0):
    return encode("duck_rule", bus=name(bus, "bus"), by=name(by, "by"), on=1 if on else 0,
                  depth_db=depth_db, threshold_db=threshold_db, attack_ms=attack_ms,
                  hold_ms=hold_ms, release_ms=release_ms)


def get_duck_info(r):
    d = get(r, "duck_info")
    rule = d.pop("rule")
    del rule["on"]  # always 1 in a list
    rule.update(d)
    return rule


def enc_rzone(action, zone, pos=(0, 0, 0), radius=0.0, fade=0.0, bus="", feed="",
              preset="hall"):
    return encode("rzone", action=action, name=name(zone, "zone"), pos=pos, radius=radius,
                  fade=fade, bus=name(bus, "bus", empty=True), feed=name(feed, "feed", empty=True),
                  preset=enum(REVERB_PRESETS, preset, "preset"))


SNAPSHOT_TARGETS = ("gain", "mute", "fx")
SNAPSHOT_STATES = ("idle", "fading-in", "on", "fading-out")


def enc_snapshot(action, snap, priority=0, fade_ms=-1.0, intensity=1.0, bus="", target="gain",
                 fx_index=0, param=0, value=0.0):
    return encode("snapshot", action=action, name=name(snap, "snapshot"), priority=priority,
                  fade_ms=fade_ms, intensity=intensity, bus=name(bus, "bus", empty=True),
                  target=enum(SNAPSHOT_TARGETS, target, "target"), fx_index=fx_index,
                  param=param, value=value)


CONE_TARGETS = ("voice", "emitter", "cue")


def enc_cone(target, voice=0, name_="", dir=(0.0, 0.0, 0.0), inner_deg=360.0, outer_deg=360.0,
             outer_gain=0.0, outer_lp_hz=0.0):
    return encode("cone", target=enum(CONE_TARGETS, target, "target"), voice=voice,
                  name=name(name_, "name", empty=True), dir=dir, inner_deg=inner_deg,
                  outer_deg=outer_deg, outer_gain=outer_gain, outer_lp_hz=outer_lp_hz)


ATTEN_KINDS = ("gain", "lowpass", "send")


def enc_atten(target, voice=0, name_="", points=(), kind="gain"):
    pts = list(points)
    if len(pts) > 8:
        raise HeliodError(-4, "points: at most 8")
    d = [float(p[0]) for p in pts] + [0.0] * (8 - len(pts))
    g = [float(p[1]) for p in pts] + [0.0] * (8 - len(pts))
    return encode("atten", target=enum(CONE_TARGETS, target, "target"), voice=voice,
                  name=name(name_, "name", empty=True), npoints=len(pts), dist=d, gain_db=g,
                  kind=enum(ATTEN_KINDS, kind, "kind"))


def get_sheet_key(r):
    d = get(r, "sheet_key")
    d["section"] = ("cue", "music")[d["section"]]
    return d


def get_snapshot_info(r):
    d = get(r, "snapshot_info")
    d["state"] = SNAPSHOT_STATES[d["state"]]
    return d


def get_rzone_info(r):
    d = get(r, "rzone_info")
    z = _names(d.pop("zone"), preset=REVERB_PRESETS)
    del z["action"]  # 0 in a list
    z.update(d)
    return z


# ---- assets: banks and world zones --------------------------------------------------------

def get_bank_info(r):
    return _names(get(r, "bank_info"), state=BANK_STATES)


def dec_bank_info(r):
    b = get_bank_info(r)
    r.done()
    return b


def enc_bank(action, arg):
    """BANK: load (0) the manifest at path arg, or unload (1) the bank named arg."""
    return encode("bank", action=action, arg=arg)


def enc_zone(action, zone, bank="", pos=(0, 0, 0), radius=0.0):
    return encode("zone", action=action, name=name(zone, "zone"), bank=bank, pos=pos,
                  radius=radius)


def get_zone_info(r):
    d = get(r, "zone_info")
    z = d.pop("zone")
    del z["action"]  # 0 in a list
    z.update(_names(d, state=ZONE_STATES))
    return z


# ---- time ---------------------------------------------------------------------------------

def get_clock(r):
    return get(r, "clock")


def enc_music(music, to):
    return encode("music_req", name=name(music, "music"), to=name(to, "state"))


def dec_music(r):
    return decode(r, "music_reply")


def dec_clock(r):
    return decode(r, "clock")


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

