"""_calls - every request, shared by Client and AsyncClient.

Each call builds its body (_bodies) and hands (op name, body, reply decoder)
to self._call, which the blocking Client answers with the decoded reply and
the AsyncClient with an awaitable of it. Calls made of several requests
(load_memory, at_ms) are generators driven by self._run, so the one
implementation serves both clients.

Scheduling: play, stop, set (and pause/resume/seek, which are SETs),
the bus calls and listener take `at=FRAME` (HL_FLAG_AT: applied on that
engine frame); at_frame()/at_ms() set a frame for every such call that
follows, like heliod_at_frame(). `late_frames` is the last scheduled
reply's trailer. stop, set, listener and emitter_set take noreply=True
(HL_FLAG_NOREPLY: fire and forget; a failure arrives as an "error" Event).
"""

import os
import time

from . import _bodies as B
from ._wire import EINVAL, FLAG_AT, MAX_CHUNK, MAX_UPLOAD, SCHEDULABLE, HeliodError, W


def _vox(voice):
    if not isinstance(voice, int) or voice <= 0:
        raise HeliodError(EINVAL, "voice: a handle from play() (never 0)")
    return voice


class _Calls:
    _at = 0            # the sticky frame of at_frame() / at_ms(); 0 = none
    late_frames = 0    # frames the last scheduled request was late (0: on time)
    _bundle = None     # requests held by an open bundle (blocking Client)

    # ---- connection ---------------------------------------------------------------------

    def ping(self):
        """The daemon's CLOCK_MONOTONIC time in ns."""
        return self._call("ping", b"", B.dec_u64)

    def stats(self, reset=False):
        """Every STATS key with its value, as a dict; reset=True restarts the
        callback-time histogram and the integrated loudness after reading."""
        return self._call("stats", B.encode("stats_req", flags=1 if reset else 0), B.dec_stats)

    def subscribe(self, mask, meter_hz=0.0, profile_hz=0.0):
        """Which events this connection wants (SUB_* bits); replaces the last."""
        return self._call("subscribe", B.enc_subscribe(mask, meter_hz, profile_hz), B.dec_none)

    def sync(self):
        """A PING round trip: every reply and event (the ERROR events of
        noreply requests) sent before it has been received when it returns."""
        return self.ping()

    # ---- sounds ---------------------------------------------------------------------------

    def load(self, name, path, stream=False, shared=False, pin=False, compressed=False,
             offset=0, length=0):
        """Decodes a file the daemon reads (a relative path is made absolute
        here) into a sound; returns its SOUND_INFO dict. compressed: keep the
        encoded file in the daemon's memory, decoded while it plays;
        offset/length: the sound is that byte range of a pack file (length 0:
        to its end)."""
        path = os.path.abspath(path)
        flags = (B.LOAD_STREAM if stream else 0) | (B.LOAD_SHARED if shared else 0)
        flags |= (B.LOAD_PIN if pin else 0) | (B.LOAD_COMPRESSED if compressed else 0)
        return self._call("load", B.enc_load(name, path, flags, offset, length), B.dec_sound)

    def load_memory(self, name, data, shared=False, pin=False):
        """Uploads an encoded file (bytes: WAV, FLAC, Ogg ...) over the socket
        in LOAD_DATA chunks, like heliod_load_memory(): for a game that does
        not share a filesystem with the daemon. Returns the SOUND_INFO dict
        once the daemon decoded it."""
        return self._run(self._load_memory(name, bytes(data), shared, pin))

    def _load_memory(self, name, data, shared, pin):
        if not 1 <= len(data) <= MAX_UPLOAD:
            raise HeliodError(EINVAL, "upload: 1 byte to 256 MiB of an encoded file")
        flags = (B.LOAD_SHARED if shared else 0) | (B.LOAD_PIN if pin else 0)
        info = None
        for off in range(0, len(data), MAX_CHUNK):
            chunk = data[off:off + MAX_CHUNK]
            last = off + len(chunk) == len(data)
            body = B.enc_load_data(name, flags, len(data), off, chunk)
            info = yield ("load_data", body, B.dec_sound if last else B.dec_none)
        return info

    def unload(self, name):
        return self._call("unload", B.enc_name(name, "sound"), B.dec_none)

    def sounds(self):
        """The sounds this connection sees: a list of SOUND_INFO dicts."""
        return self._call("sounds", b"", B.lister(B.get_sound))

    # ---- voices -----------------------------------------------------------------------------

    def play(self, sound, at=None, **kw):
        """Plays a cue or a sound (a cue of that name first); returns the
        voice handle. Keywords: gain_db, pan, pos (x, y, z: makes it 3D),
        pitch, loop, loop_start, loop_end, loop_count, loop_xfade_ms, interp
        ("linear", "cubic" or "sinc"; default: the cue's, else the daemon's
        --interp; cubic=True is interp="cubic"), priority, fade_in_ms, min_distance, max_distance, rolloff, model,
        bus, detached, paused, vel, emitter, lp_hz, hp_hz, occlusion,
        obstruction, sends [(bus, db), ...], on ("beat" or "bar") with of (a
        music voice): a stinger on its next beat or bar. For a cue, gain adds, pitch
        multiplies, loop/3D are OR'd, an interp given wins, and every other field given
        replaces the cue's (its OVER_* bit is set; `over` adds bits)."""
        return self._call("play", B.enc_play(sound, **kw), B.dec_play_reply, at=at)

    def stop(self, voice, fade_ms=-1.0, curve=None, at=None, noreply=False):
        """Stops a voice with a fade (-1: the default 10 ms) of curve
        "linear", "equal-power" or "log" (None: the voice's own)."""
        return self._call("stop", B.enc_stop(_vox(voice), fade_ms, curve), B.dec_none, at=at,
                          noreply=noreply)

    def stop_all(self, fade_ms=-1.0, everyone=False):
        """Stops this connection's voices (everyone: every client's, a
        control client only); returns how many."""
        return self._call("stop_all", B.enc_stop_all(fade_ms, everyone),
                          B.dec_count)

    def set(self, voice, at=None, noreply=False, **kw):
        """Changes a voice: gain_db, pan, pos, pitch, vel, seek_s, pause,
        resume, lp_hz, hp_hz, occlusion, obstruction, sends, lfe, over
        ramp_ms; loops: the loop passes left (-1 forever, 0 leaves the loop
        after this pass and plays on to the sound's end; protocol 1.1)."""
        return self._call("set", B.enc_set(_vox(voice), **kw), B.dec_none, at=at,
                          noreply=noreply)

    def pause(self, voice, ramp_ms=0.0, at=None):
        """Pauses one voice (fades out over ramp_ms, then holds)."""
        return self.set(voice, pause=True, ramp_ms=ramp_ms, at=at)

    def resume(self, voice, ramp_ms=0.0, at=None):
        """Resumes a paused voice (fades back in over ramp_ms)."""
        return self.set(voice, resume=True, ramp_ms=ramp_ms, at=at)

    def seek(self, voice, seconds, at=None):
        """Jumps a voice to `seconds` from its sound's start, click-free."""
        return self.set(voice, seek_s=float(seconds), at=at)

    def _pause(self, pause, scope, group=""):
        return self._call("pause", B.enc_pause(pause, scope, group), B.dec_count)

    def pause_all(self, everyone=False):
        """Pauses this connection's voices (everyone: every client's, a
        control client only); returns how many changed."""
        return self._pause(True, B.PAUSE_EVERYONE if everyone else B.PAUSE_MINE)

    def resume_all(self, everyone=False):
        return self._pause(False, B.PAUSE_EVERYONE if everyone else B.PAUSE_MINE)

    def pause_bus(self, bus):
        """Pauses every voice on a bus (a control client: any client's); returns how many."""
        return self._pause(True, B.PAUSE_BUS, bus)

    def resume_bus(self, bus):
        return self._pause(False, B.PAUSE_BUS, bus)

    def pause_category(self, category):
        """Pauses every voice of a category; returns how many."""
        return self._pause(True, B.PAUSE_CATEGORY, category)

    def resume_category(self, category):
        return self._pause(False, B.PAUSE_CATEGORY, category)

    def listener(self, pos=None, forward=None, up=None, vel=None, at=None, noreply=False,
                 index=0, off=False, weight=None):
        """Moves listener `index` (0: the global one; 1..3, protocol 1.1: this
        client's own, on from its first move until off=True). Each 3D voice is
        heard by the nearest listener; weight (0..1], protocol 1.1: while any
        listener on has one, a 3D voice's gain is the sum of weight x its gain
        at each listener; weight="nearest" drops this listener's."""
        return self._call("listener", B.enc_listener(pos, forward, up, vel, index, off, weight),
                          B.dec_none, at=at, noreply=noreply)

    def voices(self):
        """Every voice: a list of VOICE_INFO dicts (state, position_s, post ...)."""
        return self._call("voices", b"", B.lister(B.get_voice))

    # ---- cues, categories, emitters ---------------------------------------------------------

    def cue_define(self, name, sounds, **kw):
        """Defines or redefines a cue: 1..16 sound variations (a name or a
        list) and the keywords pick ("random", "shuffle", "sequence"), loop,
        spatial (3D), interp ("linear", "cubic", "sinc"), gain_db, gain_rand_db, pitch, pitch_rand_cents,
        bus, category, priority, pan, min_distance, max_distance, rolloff,
        model, fade_in_ms, fade_out_ms, fade_curve, max_instances, overflow
        ("refuse", "stop-oldest", "fade-oldest", "steal-lowest-priority",
        "steal-quietest", "steal-farthest"), min_interval_ms, beyond
        ("virtual", "release", "clamp"), virt ("resume", "restart", "kill"),
        doppler, lp_hz, hp_hz, occlusion, obstruction, sends. Defaults as
        heliod_cue_init(). play(name) plays it."""
        return self._call("cue", B.enc_cue(name, sounds, **kw), B.dec_none)

    def category_define(self, name, max_instances=0, overflow="refuse", fade_out_ms=-1.0,
                        fade_curve="linear"):
        """Defines or redefines a category: a voice limit its cues share."""
        return self._call("category", B.enc_category(name, max_instances, overflow, fade_out_ms,
                                                     fade_curve), B.dec_none)

    def cues_load(self, path):
        """Has the daemon read a cue sheet (made absolute here); returns
        (cues, categories) it defined."""
        return self._call("cues_load", B.encode("cues_load", path=os.path.abspath(path)),
                          B.dec_cues_load)

    def cues(self):
        """Categories then cues: dicts with kind "cue" or "category", their
        definition and their counters (plays, refusals, evictions, active ...)."""
        return self._call("cues", b"", B.lister(B.get_cue_info))

    def emitter_create(self, name, pos, vel=None, detached=False):
        """A named moving position voices can follow (play(..., emitter=name))."""
        return self._call("emitter", B.enc_emitter(0, name, pos, vel, detached, 0.0, 0.0),
                          B.dec_none)

    def emitter_set(self, name, pos=None, vel=None, ramp_ms=0.0, noreply=False):
        """Moves an emitter and every voice on it (noreply: a game's per-frame update)."""
        return self._call("emitter", B.enc_emitter(1, name, pos, vel, False, ramp_ms, 0.0),
                          B.dec_none, noreply=noreply)

    def emitter_destroy(self, name, fade_ms=-1.0):
        """Destroys an emitter; its voices fade out (-1: each its cue's
        fade-out) and end "emitter". Returns how many voices it stopped."""
        return self._call("emitter", B.enc_emitter(2, name, fade_ms=fade_ms), B.dec_count)

    # ---- game parameters (protocol 1.1) ------------------------------------------------------

    def param_define(self, name, min=0.0, max=1.0, default=0.0, seek=0.0):
        """Defines or redefines a game parameter: its range, default and seek
        speed (units per second the value moves toward what is set; 0 jumps)."""
        return self._call("param_def", B.enc_param_def(name, min, max, default, seek), B.dec_none)

    def param_set(self, name, value, emitter=None, voice=None, at=None, noreply=False):
        """Sets a parameter's global value, or an emitter's (emitter=NAME) or
        a voice's (voice=HANDLE) own. Schedulable (at=FRAME) like set()."""
        return self._call("param", B.enc_param(name, value, emitter, voice), B.dec_none, at=at,
                          noreply=noreply)

    def bind(self, cue, param, prop, points=(), index=0, fxp=0):
        """Binds param through a curve to a property of cue's voices: prop
        "gain" (dB), "pitch" (cents), "lp", "hp" (Hz), "occlusion", "send"
        (dB on send index), "switch" or "blend"; points: (x, y) or (x, y,
        shape) with shape "linear", "exp", "log" or "scurve" for the segment
        after it (switch, blend: bare x values). prop "bus-gain" (dB) and
        "fx" (parameter fxp of effect index) bind the bus named by cue;
        "snapshot" (intensity 0..1) the mixer snapshot named by cue."""
        return self._call("bind", B.enc_bind(cue, param, prop, points, index, fxp=fxp),
                          B.dec_none)

    def bind_clear(self, cue):
        """Removes every binding of cue."""
        return self._call("bind", B.enc_bind(cue, None, "gain", (), 0, clear=True), B.dec_none)

    def params(self):
        """The game parameters: dicts with def (name, min, max, def, seek),
        value, target, owner and scoped."""
        return self._call("params", b"", B.lister(B.get_param_info))

    # ---- the mixer graph ----------------------------------------------------------------------

    def _bus(self, bus, mask, at=None, **kw):
        return self._call("bus", B.enc_bus(bus, mask, **kw), B.dec_none, at=at)

    def bus_create(self, name, parent=""):
        """A new bus under parent ("" or "master": the master)."""
        return self._bus(name, B.BUS_CREATE, parent=parent)

    def bus_remove(self, name):
        return self._bus(name, B.BUS_REMOVE)

    def bus_parent(self, name, parent):
        """Moves a bus under another parent."""
        return self._bus(name, B.BUS_PARENT, parent=parent)

    def bus_gain(self, name, gain_db, ramp_ms=0.0, at=None):
        return self._bus(name, B.BUS_GAIN, at=at, gain_db=gain_db, ramp_ms=ramp_ms)

    def bus_mute(self, name, mute=True, ramp_ms=0.0, at=None):
        return self._bus(name, B.BUS_MUTE, at=at, mute=mute, ramp_ms=ramp_ms)

    def bus_send(self, name, target, db, ramp_ms=0.0, at=None):
        """Bus `name` also feeds `target` at db (pre-fader); db <= -144 removes the send."""
        return self._bus(name, B.BUS_SEND, at=at, send=target, send_db=max(db, -144.0),
                         ramp_ms=ramp_ms)

    def buses(self):
        """Every bus, master first, parents before children: dicts with name,
        parent, gain_db, mute, fx, voices, sends, duck_db, path_gain_db and
        bus_sends [(target, db)]."""
        return self._call("buses", b"", B.lister(B.get_bus_info))

    def fx_add(self, bus, kind, index=None, type=None, **params):
        """Inserts an effect on a bus ("master" too) at index (None: the
        end); returns where it went. kind is "eq", "comp" or "reverb", or a
        whole heliodctl-style string ("eq --type peak --freq 1000 --gain -6").
        type: an eq type ("lowpass", "highpass", "lowshelf", "highshelf",
        "peak") or a reverb preset ("room", "hall", "cave", "outdoor").
        Parameters by name: eq freq, q, gain; comp threshold, ratio, knee,
        attack, release, makeup; reverb rt60, damping, predelay, size, wet, dry."""
        kind, type, params = self._fx_args(kind, type, params)
        idx = 0xFFFFFFFF if index is None else index
        return self._call("fx", B.enc_fx(0, bus, idx, kind, type, **params), B.dec_count)

    def fx_set(self, bus, index, kind, type=None, **params):
        """Changes the effect at index (same kind); ramp_ms glides eq, comp and reverb changes."""
        kind, type, params = self._fx_args(kind, type, params)
        return self._call("fx", B.enc_fx(1, bus, index, kind, type, **params), B.dec_count)

    @staticmethod
    def _fx_args(kind, type, params):
        if " " in kind:
            parsed = B.fx_parse(kind)
            kind = parsed.pop("kind")
            type = parsed.pop("type", type)
            parsed.update(params)
            params = parsed
        return kind, type, params

    def fx_remove(self, bus, index):
        return self._call("fx", B.enc_fx(2, bus, index), B.dec_count)

    def fx_list(self, bus=""):
        """Effects of a bus, or of every bus (""): dicts with bus, index,
        kind, type and params {name: value}."""
        return self._call("fx_list", B.enc_name(bus, "bus"), B.lister(B.get_fx_info))

    def duck(self, bus, by, depth_db=9.0, threshold_db=-40.0, attack_ms=80.0, hold_ms=200.0,
             release_ms=600.0):
        """Adds or updates the rule: `bus` goes down depth_db while `by` is
        above threshold_db (-144: while it has voices)."""
        return self._call("duck", B.enc_duck(bus, by, True, depth_db, threshold_db, attack_ms,
                                             hold_ms, release_ms), B.dec_none)

    def duck_remove(self, bus, by):
        return self._call("duck", B.enc_duck(bus, by, False), B.dec_none)

    def ducks(self):
        """The ducking rules with gain_db, the ducking applied now."""
        return self._call("ducks", b"", B.lister(B.get_duck_info))

    def reverb_zone_set(self, name, pos, radius, fade=0.0, bus="", feed="", preset="hall"):
        """Adds or changes a reverb zone (RZONE): a sphere whose reverb bus
        (bus "": one made after the zone with `preset`) is fed from `feed`
        ("": "reverb_zones") at a level following the listener."""
        return self._call("rzone", B.enc_rzone(0, name, pos, radius, fade, bus, feed, preset),
                          B.dec_none)

    def reverb_zone_remove(self, name):
        return self._call("rzone", B.enc_rzone(1, name), B.dec_none)

    def reverb_zones(self):
        """RZONES: dicts with name, pos, radius, fade, bus, feed, preset,
        weight (0..1) and send_db now."""
        return self._call("rzones", b"", B.lister(B.get_rzone_info))

    # ---- sound cones (protocol 1.1) ------------------------------------------------------------

    def cone(self, dir, inner_deg=360.0, outer_deg=360.0, outer_gain=0.0, voice=0, emitter="",
             cue="", outer_lp_hz=0.0):
        """OpenAL 1.1's sound cone along `dir` ((0,0,0): none) on a voice (now),
        an emitter (its voices now and later) or a cue (its new voices);
        outer_lp_hz: a low-pass cutoff beyond the outer cone (0: none), moved
        between the cones like the gain."""
        target = "emitter" if emitter else "cue" if cue else "voice"
        return self._call("cone", B.enc_cone(target, voice, emitter or cue, tuple(dir),
                                             inner_deg, outer_deg, outer_gain, outer_lp_hz),
                          B.dec_none)

    def attenuation(self, points, voice=0, cue="", kind="gain", emitter=""):
        """A custom distance curve: up to 8 (metres, value) points, increasing
        distances; on a voice (now), an emitter (its voices now and later,
        but for a voice given its own) or a cue's new voices. kind "gain": the
        gain in dB instead of the distance model ([] goes back to it);
        "lowpass": a low-pass cutoff in Hz (the lower of it and the voice's
        own wins); "send": a level in dB multiplying each of the voice's
        sends ([] removes either)."""
        target = "emitter" if emitter else "cue" if cue else "voice"
        return self._call("atten", B.enc_atten(target, voice, emitter or cue, points, kind=kind),
                          B.dec_none)

    # ---- mixer snapshots (protocol 1.1) ------------------------------------------------------

    def snapshot_define(self, name, priority=0, fade_ms=0.0):
        """Defines (or re-prioritises) a mixer snapshot: a named set of bus
        faders, mutes and effect parameters (snapshot_set adds them)."""
        return self._call("snapshot", B.enc_snapshot(0, name, priority=priority,
                                                     fade_ms=fade_ms), B.dec_none)

    def snapshot_set(self, name, bus, target="gain", value=0.0, fx_index=0, param=0):
        """One setting: target "gain" (dB), "mute" (1/0) or "fx" (parameter
        `param` of insert `fx_index`)."""
        return self._call("snapshot", B.enc_snapshot(1, name, bus=bus, target=target,
                                                     fx_index=fx_index, param=param,
                                                     value=value), B.dec_none)

    def snapshot_start(self, name, fade_ms=-1.0, intensity=1.0):
        """Blends the snapshot in to `intensity` (0..1) over fade_ms (-1: its own)."""
        return self._call("snapshot", B.enc_snapshot(2, name, fade_ms=fade_ms,
                                                     intensity=intensity), B.dec_none)

    def snapshot_stop(self, name, fade_ms=-1.0):
        return self._call("snapshot", B.enc_snapshot(3, name, fade_ms=fade_ms), B.dec_none)

    def snapshot_remove(self, name):
        return self._call("snapshot", B.enc_snapshot(4, name), B.dec_none)

    def sheet_keys(self):
        """SHEET_KEYS (protocol 1.1): what only a cue sheet sets, as its lines:
        dicts with section ("cue" or "music"), name, key (tempo, tempo-change,
        state, layer, transition) and value, as a sheet gives it."""
        return self._call("sheet_keys", b"", B.lister(B.get_sheet_key))

    def snapshots(self):
        """SNAPSHOTS: dicts with name, priority, fade_ms, settings, state,
        intensity (now), target and owner."""
        return self._call("snapshots", b"", B.lister(B.get_snapshot_info))

    # ---- devices ---------------------------------------------------------------------------------

    def devices(self):
        """Output devices: dicts with index, name, hostapi, max_channels,
        default_rate, default and current."""
        return self._call("devices", b"", B.lister(B.get_device))

    def device(self, name):
        """Switches the output device while everything plays on ("null", "default",
        a device name or a substring of one); returns {driver, name, rate, period}."""
        return self._call("device", B.encode("device_req", name=name), B.dec_device_reply)

    # ---- assets: banks and world zones ---------------------------------------------------------

    def bank_load(self, path):
        """Starts loading a bank manifest (made absolute here); returns its
        BANK_INFO now (state "loading"); BANK events (SUB_BANK) follow."""
        return self._call("bank", B.enc_bank(0, os.path.abspath(path)), B.dec_bank_info)

    def bank_unload(self, name):
        return self._call("bank", B.enc_bank(1, B.name(name, "bank")), B.dec_none)

    def banks(self):
        """Dicts with name, path, state ("loading", "loaded", "failed",
        "unloading"), sounds, done, failed, bytes and error."""
        return self._call("banks", b"", B.lister(B.get_bank_info))

    def zone_add(self, name, bank, pos, radius):
        """A world zone: the bank manifest at `bank` (made absolute here)
        loads when the listener comes within radius of pos."""
        return self._call("zone", B.enc_zone(0, name, os.path.abspath(bank), pos, radius),
                          B.dec_none)

    def zone_remove(self, name):
        return self._call("zone", B.enc_zone(1, name), B.dec_none)

    def zones(self):
        """Dicts with name, bank, pos, radius, state ("out", "loading",
        "loaded"), bytes and distance (from the listener at the last tick)."""
        return self._call("zones", b"", B.lister(B.get_zone_info))

    # ---- adaptive music ----------------------------------------------------------------------

    def music(self, name, to, at=None):
        """A cue sheet's [music NAME] goes to state `to` (protocol 1.1): the
        first call starts its cue (and its layers, on the same frame), later
        ones follow its transition table on the playing track's beat map,
        markers or loop end; a call while a transition waits replaces it.
        Returns {"frame": the new track's start frame (a segment
        transition: the segment's), "voice": its voice, 0 while the
        transition waits}."""
        if self.info.get("minor", 0) < 1:
            raise HeliodError(-2, "music: the daemon speaks protocol 1.0")
        return self._call("music", B.enc_music(name, to), B.dec_music, at=at)

    # ---- time ----------------------------------------------------------------------------------

    def clock(self):
        """The engine clock: {frame, time_ns, rate, period, output_latency_ns}:
        engine frame `frame` began at CLOCK_MONOTONIC time_ns."""
        return self._call("clock", b"", B.dec_clock)

    def voice_start_frame(self, voice):
        """The engine frame a voice started on (or is scheduled for)."""
        return self._call("clock", W().u64(_vox(voice)).b, B.dec_start_frame)

    def at_frame(self, frame):
        """Schedules every play, stop, set, bus and listener call that follows
        for engine frame `frame` (0: off), like heliod_at_frame()."""
        if not isinstance(frame, int) or frame < 0:
            raise HeliodError(EINVAL, "at_frame: an engine frame >= 0")
        self._at = frame

    def at_ms(self, ms):
        """As at_frame() for the frame `ms` milliseconds from now (one CLOCK
        round trip); returns that frame."""
        return self._run(self._at_ms(ms))

    def _at_ms(self, ms):
        if not 0 <= ms <= 86400000:
            raise HeliodError(EINVAL, "at_ms: 0 to a day of milliseconds")
        c = yield ("clock", b"", B.dec_clock)
        f = B.frame_at(c, time.monotonic_ns()) + int(ms * c["rate"] / 1000.0 + 0.5)
        self._at = max(f, 1)
        return self._at

    def _scheduled(self, name, body, at):
        """(flags, body) of a request: the frame in front when it is scheduled."""
        if at is None:
            at = self._at if name in SCHEDULABLE else 0
            if not at:
                return 0, body
        elif name not in SCHEDULABLE:
            raise HeliodError(EINVAL,
                              "only play, stop, set, bus, listener and param can be scheduled")
        if not isinstance(at, int) or at < 0:
            raise HeliodError(EINVAL, "at: an engine frame >= 0")
        return FLAG_AT, W().u64(at).b + body
