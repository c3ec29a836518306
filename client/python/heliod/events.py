"""events - EVENT frames (op 129) decoded into Event objects, every type
PROTOCOL.md defines: ERROR, ENDED, STARTED, VIRTUAL, REAL, DEVICE_LOST,
DEVICE_BACK, METER, BANK, ZONE_TICK, RELOAD, STREAM, BEAT, BAR, MARKER and PROFILE."""

from ._bodies import END_REASONS, VIRT_REASONS, get_bank_info
from ._wire import ERRORS, EPROTO, HeliodError, R

EVENT_TYPES = {1: "error", 2: "ended", 3: "started", 4: "virtual", 5: "real",
               6: "device_lost", 7: "device_back", 8: "meter", 9: "bank", 10: "zone_tick",
               11: "reload", 12: "stream", 13: "beat", 14: "bar",
               15: "marker", 20: "profile"}


def _level(r):
    """A METER level block: per channel (left, right) dBFS."""
    return {"peak_db": r.take("<ff"), "peak_hold_db": r.take("<ff"), "rms_db": r.take("<ff")}


class Event:
    """One EVENT frame: .type (a name of EVENT_TYPES), .id (the failed
    request's for "error", else 0) and the type's fields as attributes:

    error        req_op, status, name (e.g. "ENOSOUND"), message
    ended        voice, reason ("finished", "stopped", "stolen", "owner", ...)
    started      voice, time_ns (CLOCK_MONOTONIC of its first block)
    virtual      voice, reason ("rank", "floor", "distance", "paused", "governed")
    real         voice
    device_lost  device, time_ns (its last callback)
    device_back  device, time_ns (when audio resumed)
    meter        frame, momentary, short_term, integrated, range, channels, master,
                 buses {name: level}; a level is {peak_db, peak_hold_db, rms_db},
                 each a tuple of dBFS per channel: (left, right) on stereo, every
                 channel of a surround layout in its order (FL FR FC LFE BL BR SL SR
                 TFL TFR TBL TBR)
    bank         bank: {name, path, state, sounds, done, failed, bytes, error};
                 also name and state as attributes
    zone_tick    report: the world-zone scheduler's line for one tick
    reload       sound, status (0, or a negative code), name (e.g. "EDECODE"
                 or "OK"), frames, message: a hot reload (heliod --watch-assets)
    stream       voice, consumed, underruns (totals), frames (consumed since
                 the previous STREAM event), underran (bool): a client-fed
                 stream took frames from its ring (SUB_STREAM)
    beat, bar    voice, frame (the engine frame the beat falls on), time_ns
                 (its CLOCK_MONOTONIC time), beat, bar (0-based, since the
                 sound's start), beat_in_bar, bpm: a music voice's beat; "bar"
                 on a bar's first beat (SUB_MUSIC)
    marker       voice, frame, time_ns, marker_id, label: the voice passed a cue
                 point of its sound's file (SUB_MUSIC)
    profile      time_ns, period_us, callbacks, load_now, load_peak, load_p99,
                 load_max, hist, xruns, underruns, voices_real, voices_virtual,
                 decode_load, streams, stream [(sound, fill)], master_peak_db,
                 master_rms_db, buses {name: {peak_db, peak_hold_db, rms_db,
                 real, virtual}}
    """

    def __init__(self, rid, body):
        r = R(body)
        t = r.u16()
        if t not in EVENT_TYPES:
            raise HeliodError(EPROTO, "unknown event type %d" % t)
        self.id = rid
        self.type = EVENT_TYPES[t]
        getattr(self, "_" + self.type)(r)
        r.done()

    def _error(self, r):
        self.req_op, self.status, self.message = r.u16(), r.i32(), r.str()
        self.name = ERRORS.get(self.status, "E%d" % self.status)

    def _ended(self, r):
        self.voice, self.reason = r.u64(), r.enum(END_REASONS)

    def _started(self, r):
        self.voice, self.time_ns = r.u64(), r.u64()

    def _virtual(self, r):
        self.voice, self.reason = r.u64(), r.enum(VIRT_REASONS)

    def _real(self, r):
        self.voice = r.u64()

    def _device_lost(self, r):
        self.device, self.time_ns = r.str(), r.u64()

    _device_back = _device_lost

    def _meter(self, r):
        self.frame = r.u64()
        self.momentary, self.short_term, self.integrated, self.range = r.take("<ffff")
        self.master = _level(r)
        self.buses = {}
        for _ in range(r.u8()):
            name = r.str()
            self.buses[name] = _level(r)
        self.channels = 2
        if r.left():  # since 1.1: the channels past the front pair of a surround layout
            self.channels = r.u8()
            if not 3 <= self.channels <= 12:  # 12: 7.1.4
                raise HeliodError(EPROTO, "meter: %d channels" % self.channels)
            more = "<%df" % (self.channels - 2)
            for lv in [self.master] + list(self.buses.values()):
                for k in ("peak_db", "peak_hold_db", "rms_db"):
                    lv[k] = lv[k] + r.take(more)

    def _bank(self, r):
        self.bank = get_bank_info(r)
        self.name, self.state = self.bank["name"], self.bank["state"]

    def _zone_tick(self, r):
        self.report = r.str()

    def _reload(self, r):
        self.sound, self.status, self.frames, self.message = r.str(), r.i32(), r.u32(), r.str()
        if self.status > 0:
            raise HeliodError(EPROTO, "reload: status %d" % self.status)
        self.name = "OK" if self.status == 0 else ERRORS.get(self.status, "E%d" % self.status)

    def _stream(self, r):
        self.voice, self.consumed, self.underruns, self.frames = r.u64(), r.u64(), r.u64(), r.u32()
        u = r.u8()
        if u > 1:
            raise HeliodError(EPROTO, "stream: underran %d" % u)
        self.underran = bool(u)

    def _beat(self, r):
        self.voice, self.frame, self.time_ns, self.beat = r.u64(), r.u64(), r.u64(), r.u64()
        self.bar, self.beat_in_bar, self.bpm = r.u32(), r.u8(), r.f32()

    _bar = _beat

    def _marker(self, r):
        self.voice, self.frame, self.time_ns, self.marker_id = r.u64(), r.u64(), r.u64(), r.u32()
        self.label = r.str()

    def _profile(self, r):
        self.time_ns, self.period_us, self.callbacks = r.u64(), r.f32(), r.u32()
        self.load_now, self.load_peak, self.load_p99, self.load_max = r.take("<ffff")
        self.hist = list(r.take("<8I"))
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
