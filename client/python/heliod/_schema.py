"""_schema - the Python client's message tables, GENERATED from the protocol
schema (proto/hl_schema.h, printed by tests/proto/schema_dump) by
client/python/gen_schema.py: do not edit; regenerate with

  ninja -C build tests/proto/schema_dump
  client/python/gen_schema.py build/tests/proto/schema_dump > client/python/heliod/_schema.py

(meson test python-schema-generated fails while this file differs from
what the generator writes)."""

# MESSAGES[name]: the body's fields in wire order, each
# (name, KIND, ARG, SUB, DEFAULT, SINCE) as hl_schema.h declares them; SINCE
# is 0x0100 | minor (a field after 1.0 is optional at the end of a body)
MESSAGES = {
    "reply_head": (  # REPLY
        ("req_op", "U16", 0, None, 0, 0x0100),
        ("status", "STATUS", 0, None, 0, 0x0100),
    ),
    "list_head": (  # LIST
        ("count", "COUNT16", 1024, None, 0, 0x0100),
        ("truncated", "ENUM8", 1, None, 0, 0x0100),
    ),
    "hello": (  # HELLO
        ("version", "U16", 0, None, 1, 0x0100),
        ("client_name", "STR", 63, None, 0, 0x0100),
        ("flags", "FLAGS32", 1, None, 0, 0x0100),
        ("minor", "MINOR", 0, None, 0, 0x0101),
    ),
    "hello_reply": (  # HELLO_REPLY
        ("version", "U16", 0, None, 1, 0x0100),
        ("rate", "U32", 0, None, 0, 0x0100),
        ("period", "U32", 0, None, 0, 0x0100),
        ("voices", "U32", 0, None, 0, 0x0100),
        ("client_id", "U32", 0, None, 0, 0x0100),
        ("server_version", "STR", 63, None, 0, 0x0100),
        ("flags", "FLAGS32", 1, None, 0, 0x0100),
        ("minor", "MINOR", 0, None, 0, 0x0101),
    ),
    "load": (  # LOAD
        ("name", "STR", 63, None, 0, 0x0100),
        ("path", "STR", 4095, None, 0, 0x0100),
        ("flags", "FLAGS32", 15, None, 0, 0x0100),
        ("offset", "U64", 0, None, 0, 0x0101),
        ("length", "U64", 0, None, 0, 0x0101),
    ),
    "sound_info": (  # SOUND_INFO
        ("name", "STR", 63, None, 0, 0x0100),
        ("frames", "U32", 0, None, 0, 0x0100),
        ("channels", "U16", 0, None, 0, 0x0100),
        ("source_rate", "U32", 0, None, 0, 0x0100),
        ("flags", "FLAGS32", 7, None, 0, 0x0100),
        ("playing", "U32", 0, None, 0, 0x0100),
        ("owner", "U32", 0, None, 0, 0x0100),
    ),
    "name": (  # NAME
        ("name", "STR", 63, None, 0, 0x0100),
    ),
    "vpost": (  # POST
        ("lp_hz", "F32", 0, None, 0.0, 0x0100),
        ("hp_hz", "F32", 0, None, 0.0, 0x0100),
        ("occlusion", "F32", 0, None, 0.0, 0x0100),
        ("obstruction", "F32", 0, None, 0.0, 0x0100),
        ("send", "SENDS", 2, None, 0, 0x0100),
    ),
    "play": (  # PLAY
        ("sound", "STR", 63, None, 0, 0x0100),
        ("flags", "FLAGS32", 223, None, 0, 0x0100),
        ("gain_db", "F32", 0, None, 0.0, 0x0100),
        ("pan", "F32", 0, None, 0.0, 0x0100),
        ("pos", "VEC3", 0, None, 0, 0x0100),
        ("pitch", "F32", 0, None, 1.0, 0x0100),
        ("priority", "I32", 0, None, 0, 0x0100),
        ("fade_in_ms", "F32", 0, None, -1.0, 0x0100),
        ("min_distance", "F32", 0, None, 1.0, 0x0100),
        ("max_distance", "F32", 0, None, 100.0, 0x0100),
        ("rolloff", "F32", 0, None, 1.0, 0x0100),
        ("model", "ENUM8", 2, None, 1, 0x0100),
        ("bus", "STR", 63, None, 0, 0x0100),
        ("loop_start", "U32", 0, None, 0, 0x0100),
        ("loop_end", "U32", 0, None, 0, 0x0100),
        ("loop_count", "U32", 0, None, 0, 0x0100),
        ("loop_xfade_ms", "F32", 0, None, 0.0, 0x0100),
        ("vel", "VEC3", 0, None, 0, 0x0100),
        ("emitter", "STR", 63, None, 0, 0x0100),
        ("over", "FLAGS32", 127, None, 0, 0x0100),
        ("post", "SUB", 0, "vpost", 0, 0x0100),
        ("pan_law", "ENUM8", 1, None, 0, 0x0101),
        ("sync_on", "ENUM8", 2, None, 0, 0x0101),
        ("sync_voice", "U64", 0, None, 0, 0x0101),
        ("lfe", "F32", 0, None, 0.0, 0x0101),
    ),
    "play_reply": (  # PLAY_REPLY
        ("voice", "U64", 0, None, 0, 0x0100),
        ("stolen", "U64", 0, None, 0, 0x0100),
    ),
    "stop": (  # STOP
        ("voice", "U64", 0, None, 0, 0x0100),
        ("fade_ms", "F32", 0, None, -1.0, 0x0100),
        ("curve", "ENUM8", 3, None, 0, 0x0100),
    ),
    "stop_all": (  # STOP_ALL
        ("fade_ms", "F32", 0, None, -1.0, 0x0100),
        ("scope", "ENUM8", 1, None, 0, 0x0100),
    ),
    "count_reply": (  # COUNT
        ("count", "U32", 0, None, 0, 0x0100),
    ),
    "pause": (  # PAUSE
        ("pause", "ENUM8", 1, None, 1, 0x0100),
        ("scope", "ENUM8", 3, None, 0, 0x0100),
        ("group", "STR", 63, None, 0, 0x0100),
    ),
    "set": (  # SET
        ("voice", "U64", 0, None, 0, 0x0100),
        ("mask", "FLAGS32", 32767, None, 0, 0x0100),
        ("gain_db", "F32", 0, None, 0.0, 0x0100),
        ("pan", "F32", 0, None, 0.0, 0x0100),
        ("pos", "VEC3", 0, None, 0, 0x0100),
        ("pitch", "F32", 0, None, 1.0, 0x0100),
        ("ramp_ms", "F32", 0, None, 0.0, 0x0100),
        ("seek_s", "F64", 0, None, 0.0, 0x0100),
        ("vel", "VEC3", 0, None, 0, 0x0100),
        ("post", "SUB", 0, "vpost", 0, 0x0100),
        ("lfe", "F32", 0, None, 0.0, 0x0101),
        ("loops", "I32", 0, None, 0, 0x0101),
    ),
    "listener": (  # LISTENER
        ("mask", "FLAGS32", 15, None, 0, 0x0100),
        ("pos", "VEC3", 0, None, 0, 0x0100),
        ("fwd", "VEC3", 0, None, 0, 0x0100),
        ("up", "VEC3", 0, None, 0, 0x0100),
        ("vel", "VEC3", 0, None, 0, 0x0100),
        ("index", "ENUM8", 3, None, 0, 0x0101),
        ("off", "ENUM8", 1, None, 0, 0x0101),
        ("weight", "F32OPT", 0, None, 0.0, 0x0101),
    ),
    "voice_info": (  # VOICE_INFO
        ("voice", "U64", 0, None, 0, 0x0100),
        ("sound", "STR", 63, None, 0, 0x0100),
        ("owner", "U32", 0, None, 0, 0x0100),
        ("priority", "I32", 0, None, 0, 0x0100),
        ("flags", "FLAGS32", 223, None, 0, 0x0100),
        ("state", "ENUM8", 4, None, 0, 0x0100),
        ("gain_db", "F32", 0, None, 0.0, 0x0100),
        ("pan", "F32", 0, None, 0.0, 0x0100),
        ("pos", "VEC3", 0, None, 0, 0x0100),
        ("pitch", "F32", 0, None, 1.0, 0x0100),
        ("bus", "STR", 63, None, 0, 0x0100),
        ("cue", "STR", 63, None, 0, 0x0100),
        ("category", "STR", 63, None, 0, 0x0100),
        ("emitter", "STR", 63, None, 0, 0x0100),
        ("audibility_db", "F32", 0, None, 0.0, 0x0100),
        ("position_s", "F64", 0, None, 0.0, 0x0100),
        ("post", "SUB", 0, "vpost", 0, 0x0100),
    ),
    "device_info": (  # DEVICE_INFO
        ("index", "U32", 0, None, 0, 0x0100),
        ("name", "STR", 255, None, 0, 0x0100),
        ("hostapi", "STR", 63, None, 0, 0x0100),
        ("max_channels", "U16", 0, None, 0, 0x0100),
        ("default_rate", "F64", 0, None, 0.0, 0x0100),
        ("flags", "FLAGS8", 3, None, 0, 0x0100),
    ),
    "device_req": (  # DEVICE
        ("name", "STR", 255, None, 0, 0x0100),
    ),
    "device_reply": (  # DEVICE_REPLY
        ("driver", "STR", 63, None, 0, 0x0100),
        ("name", "STR", 255, None, 0, 0x0100),
        ("rate", "U32", 0, None, 0, 0x0100),
        ("period", "U32", 0, None, 0, 0x0100),
    ),
    "stats_req": (  # STATS_REQ
        ("flags", "FLAGS32", 1, None, 0, 0x0100),
    ),
    "stat": (  # STAT
        ("key", "STR", 63, None, 0, 0x0100),
        ("value", "F64", 0, None, 0.0, 0x0100),
    ),
    "bank": (  # BANK
        ("action", "ENUM8", 1, None, 0, 0x0100),
        ("arg", "STR", 4095, None, 0, 0x0100),
    ),
    "bank_info": (  # BANK_INFO
        ("name", "STR", 63, None, 0, 0x0100),
        ("path", "STR", 4095, None, 0, 0x0100),
        ("state", "ENUM8", 4, None, 0, 0x0100),
        ("sounds", "U32", 0, None, 0, 0x0100),
        ("done", "U32", 0, None, 0, 0x0100),
        ("failed", "U32", 0, None, 0, 0x0100),
        ("bytes", "U64", 0, None, 0, 0x0100),
        ("error", "STR", 255, None, 0, 0x0100),
    ),
    "zone": (  # ZONE
        ("action", "ENUM8", 1, None, 0, 0x0100),
        ("name", "STR", 63, None, 0, 0x0100),
        ("bank", "STR", 4095, None, 0, 0x0100),
        ("pos", "VEC3", 0, None, 0, 0x0100),
        ("radius", "F32", 0, None, 0.0, 0x0100),
    ),
    "zone_info": (  # ZONE_INFO
        ("zone", "SUB", 0, "zone", 0, 0x0100),
        ("state", "ENUM8", 2, None, 0, 0x0100),
        ("bytes", "U64", 0, None, 0, 0x0100),
        ("distance", "F32", 0, None, 0.0, 0x0100),
    ),
    "load_data": (  # LOAD_DATA
        ("name", "STR", 63, None, 0, 0x0100),
        ("flags", "FLAGS32", 6, None, 0, 0x0100),
        ("total", "U64", 0, None, 0, 0x0100),
        ("offset", "U64", 0, None, 0, 0x0100),
        ("len", "U32", 0, None, 0, 0x0100),
        ("data", "BLOB", 0, None, 0, 0x0100),
    ),
    "load_fd": (  # LOAD_FD
        ("name", "STR", 63, None, 0, 0x0100),
        ("flags", "FLAGS32", 6, None, 0, 0x0100),
        ("size", "U64", 0, None, 0, 0x0100),
    ),
    "subscribe": (  # SUBSCRIBE
        ("mask", "FLAGS32", 2047, None, 0, 0x0100),
        ("meter_hz", "F32", 0, None, 0.0, 0x0100),
        ("profile_hz", "F32OPT", 0, None, 0.0, 0x0100),
    ),
    "bus": (  # BUS
        ("name", "STR", 63, None, 0, 0x0100),
        ("mask", "FLAGS32", 63, None, 0, 0x0100),
        ("gain_db", "F32", 0, None, 0.0, 0x0100),
        ("ramp_ms", "F32", 0, None, 0.0, 0x0100),
        ("mute", "ENUM8", 1, None, 0, 0x0100),
        ("parent", "STR", 63, None, 0, 0x0100),
        ("send", "STR", 63, None, 0, 0x0100),
        ("send_db", "F32", 0, None, 0.0, 0x0100),
    ),
    "bus_info": (  # BUS_INFO
        ("name", "STR", 63, None, 0, 0x0100),
        ("parent", "STR", 63, None, 0, 0x0100),
        ("gain_db", "F32", 0, None, 0.0, 0x0100),
        ("mute", "ENUM8", 1, None, 0, 0x0100),
        ("fx", "U8", 0, None, 0, 0x0100),
        ("voices", "U32", 0, None, 0, 0x0100),
        ("sends", "U32", 0, None, 0, 0x0100),
        ("duck_db", "F32", 0, None, 0.0, 0x0100),
        ("path_gain_db", "F32", 0, None, 0.0, 0x0100),
        ("send", "SENDS", 4, None, 0, 0x0100),
    ),
    "rzone": (  # RZONE
        ("action", "ENUM8", 1, None, 0, 0x0100),
        ("name", "STR", 63, None, 0, 0x0100),
        ("pos", "VEC3", 0, None, 0, 0x0100),
        ("radius", "F32", 0, None, 0.0, 0x0100),
        ("fade", "F32", 0, None, 0.0, 0x0100),
        ("bus", "STR", 63, None, 0, 0x0100),
        ("feed", "STR", 63, None, 0, 0x0100),
        ("preset", "ENUM8", 3, None, 0, 0x0100),
    ),
    "rzone_info": (  # RZONE_INFO
        ("zone", "SUB", 0, "rzone", 0, 0x0100),
        ("weight", "F32", 0, None, 0.0, 0x0100),
        ("send_db", "F32", 0, None, 0.0, 0x0100),
    ),
    "fx_req": (  # FX
        ("action", "ENUM8", 2, None, 0, 0x0100),
        ("bus", "STR", 63, None, 0, 0x0100),
        ("index", "U32", 0, None, 0, 0x0100),
        ("kind", "ENUM8", 3, None, 0, 0x0100),
        ("type", "ENUM8", 4, None, 0, 0x0100),
        ("mask", "FLAGS32", 511, None, 0, 0x0100),
        ("p", "F32N", 8, None, 0, 0x0100),
        ("ramp_ms", "F32", 0, None, 0.0, 0x0100),
    ),
    "fx_info": (  # FX_INFO
        ("bus", "STR", 63, None, 0, 0x0100),
        ("index", "U32", 0, None, 0, 0x0100),
        ("kind", "ENUM8", 3, None, 0, 0x0100),
        ("type", "ENUM8", 4, None, 0, 0x0100),
        ("p", "F32N", 8, None, 0, 0x0100),
    ),
    "duck_rule": (  # DUCK
        ("bus", "STR", 63, None, 0, 0x0100),
        ("by", "STR", 63, None, 0, 0x0100),
        ("on", "ENUM8", 1, None, 1, 0x0100),
        ("depth_db", "F32", 0, None, 9.0, 0x0100),
        ("threshold_db", "F32", 0, None, -40.0, 0x0100),
        ("attack_ms", "F32", 0, None, 80.0, 0x0100),
        ("hold_ms", "F32", 0, None, 200.0, 0x0100),
        ("release_ms", "F32", 0, None, 600.0, 0x0100),
    ),
    "duck_info": (  # DUCK_INFO
        ("rule", "SUB", 0, "duck_rule", 0, 0x0100),
        ("gain_db", "F32", 0, None, 0.0, 0x0100),
    ),
    "cue": (  # CUE
        ("name", "STR", 63, None, 0, 0x0100),
        ("sounds", "NSTR", 16, None, 0, 0x0100),
        ("pick", "ENUM8", 2, None, 0, 0x0100),
        ("flags", "FLAGS32", 211, None, 0, 0x0100),
        ("gain_db", "F32", 0, None, 0.0, 0x0100),
        ("gain_rand_db", "F32", 0, None, 0.0, 0x0100),
        ("pitch", "F32", 0, None, 1.0, 0x0100),
        ("pitch_rand_cents", "F32", 0, None, 0.0, 0x0100),
        ("bus", "STR", 63, None, 0, 0x0100),
        ("category", "STR", 63, None, 0, 0x0100),
        ("priority", "I32", 0, None, 0, 0x0100),
        ("pan", "F32", 0, None, 0.0, 0x0100),
        ("min_distance", "F32", 0, None, 1.0, 0x0100),
        ("max_distance", "F32", 0, None, 100.0, 0x0100),
        ("rolloff", "F32", 0, None, 1.0, 0x0100),
        ("model", "ENUM8", 2, None, 1, 0x0100),
        ("fade_in_ms", "F32", 0, None, -1.0, 0x0100),
        ("fade_out_ms", "F32", 0, None, -1.0, 0x0100),
        ("fade_curve", "ENUM8", 2, None, 0, 0x0100),
        ("max_instances", "U32", 0, None, 0, 0x0100),
        ("overflow", "ENUM8", 5, None, 0, 0x0100),
        ("min_interval_ms", "F32", 0, None, 0.0, 0x0100),
        ("beyond", "ENUM8", 2, None, 0, 0x0100),
        ("virt", "ENUM8", 2, None, 0, 0x0100),
        ("doppler", "F32", 0, None, 1.0, 0x0100),
        ("post", "SUB", 0, "vpost", 0, 0x0100),
    ),
    "category": (  # CATEGORY
        ("name", "STR", 63, None, 0, 0x0100),
        ("max_instances", "U32", 0, None, 0, 0x0100),
        ("overflow", "ENUM8", 5, None, 0, 0x0100),
        ("fade_out_ms", "F32", 0, None, -1.0, 0x0100),
        ("fade_curve", "ENUM8", 2, None, 0, 0x0100),
    ),
    "cue_counters": (  # CUE_COUNTERS
        ("plays", "U64", 0, None, 0, 0x0100),
        ("refused_interval", "U64", 0, None, 0, 0x0100),
        ("refused_distance", "U64", 0, None, 0, 0x0100),
        ("refused_cue_limit", "U64", 0, None, 0, 0x0100),
        ("refused_cat_limit", "U64", 0, None, 0, 0x0100),
        ("refused_no_voice", "U64", 0, None, 0, 0x0100),
        ("evicted_cue", "U64", 0, None, 0, 0x0100),
        ("evicted_cat", "U64", 0, None, 0, 0x0100),
        ("stolen", "U64", 0, None, 0, 0x0100),
        ("virtualised", "U64", 0, None, 0, 0x0100),
        ("active", "U32", 0, None, 0, 0x0100),
        ("virtual_now", "U32", 0, None, 0, 0x0100),
    ),
    "cues_load": (  # CUES_LOAD
        ("path", "STR", 4095, None, 0, 0x0100),
    ),
    "cues_load_reply": (  # CUES_LOAD_REPLY
        ("cues", "U32", 0, None, 0, 0x0100),
        ("categories", "U32", 0, None, 0, 0x0100),
    ),
    "emitter": (  # EMITTER
        ("action", "ENUM8", 2, None, 0, 0x0100),
        ("name", "STR", 63, None, 0, 0x0100),
        ("mask", "FLAGS32", 7, None, 0, 0x0100),
        ("pos", "VEC3", 0, None, 0, 0x0100),
        ("vel", "VEC3", 0, None, 0, 0x0100),
        ("ramp_ms", "F32", 0, None, 0.0, 0x0100),
        ("fade_ms", "F32", 0, None, -1.0, 0x0100),
    ),
    "clock": (  # CLOCK
        ("frame", "U64", 0, None, 0, 0x0100),
        ("time_ns", "U64", 0, None, 0, 0x0100),
        ("rate", "U32", 0, None, 0, 0x0100),
        ("period", "U32", 0, None, 0, 0x0100),
        ("output_latency_ns", "U64", 0, None, 0, 0x0100),
    ),
    "stream_req": (  # STREAM
        ("rate", "U32", 0, None, 0, 0x0100),
        ("channels", "U8", 0, None, 2, 0x0100),
        ("format", "U8", 0, None, 0, 0x0100),
        ("frames", "U32", 0, None, 0, 0x0100),
        ("size", "U64", 0, None, 0, 0x0100),
        ("play", "SUB", 0, "play", 0, 0x0100),
    ),
    "param_def": (  # PARAM_DEF
        ("name", "STR", 63, None, 0, 0x0100),
        ("min", "F32", 0, None, 0.0, 0x0100),
        ("max", "F32", 0, None, 1.0, 0x0100),
        ("def", "F32", 0, None, 0.0, 0x0100),
        ("seek", "F32", 0, None, 0.0, 0x0100),
    ),
    "param_info": (  # PARAM_INFO
        ("def", "SUB", 0, "param_def", 0, 0x0100),
        ("value", "F32", 0, None, 0.0, 0x0100),
        ("target", "F32", 0, None, 0.0, 0x0100),
        ("owner", "U32", 0, None, 0, 0x0100),
        ("scoped", "U32", 0, None, 0, 0x0100),
    ),
    "param": (  # PARAM
        ("name", "STR", 63, None, 0, 0x0100),
        ("scope", "ENUM8", 2, None, 0, 0x0100),
        ("emitter", "STR", 63, None, 0, 0x0100),
        ("voice", "U64", 0, None, 0, 0x0100),
        ("value", "F32", 0, None, 0.0, 0x0100),
    ),
    "bind": (  # BIND
        ("action", "ENUM8", 1, None, 0, 0x0100),
        ("cue", "STR", 63, None, 0, 0x0100),
        ("param", "STR", 63, None, 0, 0x0100),
        ("prop", "ENUM8", 10, None, 0, 0x0100),
        ("index", "U8", 0, None, 0, 0x0100),
        ("npoints", "U8", 0, None, 0, 0x0100),
        ("x", "F32N", 16, None, 0, 0x0100),
        ("y", "F32N", 16, None, 0, 0x0100),
        ("shapes", "U32", 0, None, 0, 0x0100),
        ("fxp", "U8", 0, None, 0, 0x0100),
    ),
    "snapshot": (  # SNAPSHOT
        ("action", "ENUM8", 4, None, 0, 0x0101),
        ("name", "STR", 63, None, 0, 0x0101),
        ("priority", "I32", 0, None, 0, 0x0101),
        ("fade_ms", "F32", 0, None, -1.0, 0x0101),
        ("intensity", "F32", 0, None, 1.0, 0x0101),
        ("bus", "STR", 63, None, 0, 0x0101),
        ("target", "ENUM8", 2, None, 0, 0x0101),
        ("fx_index", "U32", 0, None, 0, 0x0101),
        ("param", "U8", 0, None, 0, 0x0101),
        ("value", "F32", 0, None, 0.0, 0x0101),
    ),
    "snapshot_info": (  # SNAPSHOT_INFO
        ("name", "STR", 63, None, 0, 0x0100),
        ("priority", "I32", 0, None, 0, 0x0100),
        ("fade_ms", "F32", 0, None, 0.0, 0x0100),
        ("settings", "U32", 0, None, 0, 0x0100),
        ("state", "ENUM8", 3, None, 0, 0x0100),
        ("intensity", "F32", 0, None, 0.0, 0x0100),
        ("target", "F32", 0, None, 0.0, 0x0100),
        ("owner", "U32", 0, None, 0, 0x0100),
    ),
    "cone": (  # CONE
        ("target", "ENUM8", 2, None, 0, 0x0101),
        ("voice", "U64", 0, None, 0, 0x0101),
        ("name", "STR", 63, None, 0, 0x0101),
        ("dir", "VEC3", 0, None, 0, 0x0101),
        ("inner_deg", "F32", 0, None, 360.0, 0x0101),
        ("outer_deg", "F32", 0, None, 360.0, 0x0101),
        ("outer_gain", "F32", 0, None, 0.0, 0x0101),
        ("outer_lp_hz", "F32OPT", 0, None, 0.0, 0x0101),
    ),
    "atten": (  # ATTEN
        ("target", "ENUM8", 2, None, 0, 0x0101),
        ("voice", "U64", 0, None, 0, 0x0101),
        ("name", "STR", 63, None, 0, 0x0101),
        ("npoints", "U8", 0, None, 0, 0x0101),
        ("dist", "F32N", 8, None, 0, 0x0101),
        ("gain_db", "F32N", 8, None, 0, 0x0101),
        ("kind", "ENUM8", 2, None, 0, 0x0101),
    ),
    "music_req": (  # MUSIC
        ("name", "STR", 63, None, 0, 0x0100),
        ("to", "STR", 63, None, 0, 0x0100),
    ),
    "music_reply": (  # MUSIC_REPLY
        ("frame", "U64", 0, None, 0, 0x0100),
        ("voice", "U64", 0, None, 0, 0x0100),
    ),
    "capture": (  # CAPTURE
        ("action", "ENUM8", 1, None, 0, 0x0100),
        ("flags", "FLAGS32", 1, None, 0, 0x0100),
        ("path", "STR", 4095, None, 0, 0x0100),
    ),
    "cue_detail": (  # CUE_DETAIL
        ("name", "STR", 63, None, 0, 0x0100),
        ("cone_dir", "VEC3", 0, None, 0, 0x0100),
        ("inner_deg", "F32", 0, None, 360.0, 0x0100),
        ("outer_deg", "F32", 0, None, 360.0, 0x0100),
        ("outer_gain", "F32", 0, None, 0.0, 0x0100),
        ("outer_lp_hz", "F32", 0, None, 0.0, 0x0100),
        ("npoints", "U8", 0, None, 0, 0x0100),
        ("dist", "F32N", 8, None, 0, 0x0100),
        ("gain_db", "F32N", 8, None, 0, 0x0100),
        ("nbinds", "U8", 0, None, 0, 0x0100),
    ),
    "snapshot_setting": (  # SNAPSHOT_SETTING
        ("bus", "STR", 63, None, 0, 0x0100),
        ("target", "ENUM8", 2, None, 0, 0x0100),
        ("fx_index", "U32", 0, None, 0, 0x0100),
        ("param", "U8", 0, None, 0, 0x0100),
        ("value", "F32", 0, None, 0.0, 0x0100),
    ),
    "sheet_key": (  # SHEET_KEY
        ("section", "ENUM8", 1, None, 0, 0x0100),
        ("name", "STR", 63, None, 0, 0x0100),
        ("key", "STR", 63, None, 0, 0x0100),
        ("value", "STR", 255, None, 0, 0x0100),
    ),
}

# flag bits of the flag fields, and PAUSE's scopes (proto/hl_proto.h)
PLAY_LOOP = 0x1
PLAY_3D = 0x2
PLAY_DETACHED = 0x4
PLAY_PAUSED = 0x8
PLAY_CUBIC = 0x10
PLAY_SINC = 0x40
PLAY_LINEAR = 0x80
SET_GAIN = 0x1
SET_PAN = 0x2
SET_POS = 0x4
SET_PITCH = 0x8
SET_PAUSE = 0x10
SET_RESUME = 0x20
SET_SEEK = 0x40
SET_VEL = 0x80
SET_LP = 0x100
SET_HP = 0x200
SET_OCCLUSION = 0x400
SET_OBSTRUCTION = 0x800
SET_SENDS = 0x1000
SET_LFE = 0x2000
SET_LOOPS = 0x4000
LST_POS = 0x1
LST_FWD = 0x2
LST_UP = 0x4
LST_VEL = 0x8
SUB_ENDED = 0x1
SUB_STARTED = 0x2
SUB_ALL = 0x4
SUB_VIRTUAL = 0x8
SUB_DEVICE = 0x10
SUB_METER = 0x20
SUB_BANK = 0x40
SUB_ZONES = 0x80
SUB_PROFILE = 0x100
SUB_STREAM = 0x200
SUB_MUSIC = 0x400
LOAD_STREAM = 0x1
LOAD_SHARED = 0x2
LOAD_PIN = 0x4
LOAD_COMPRESSED = 0x8
OVER_PRIORITY = 0x1
OVER_BUS = 0x2
OVER_FADE_IN = 0x4
OVER_DISTANCE = 0x8
OVER_PAN = 0x10
OVER_FILTER = 0x20
OVER_SENDS = 0x40
BUS_GAIN = 0x1
BUS_MUTE = 0x2
BUS_CREATE = 0x4
BUS_REMOVE = 0x8
BUS_PARENT = 0x10
BUS_SEND = 0x20
PAUSE_MINE = 0
PAUSE_EVERYONE = 1
PAUSE_BUS = 2
PAUSE_CATEGORY = 3
EM_POS = 0x1
EM_VEL = 0x2
EM_DETACHED = 0x4
FXP_TYPE = 0x100

# the cue enumerations' names in wire order (hl_enum_name)
MODELS = ("linear", "inverse", "exponential")
PICKS = ("random", "shuffle", "sequence")
OVERFLOWS = (
    "refuse",
    "stop-oldest",
    "fade-oldest",
    "steal-lowest-priority",
    "steal-quietest",
    "steal-farthest")
BEYONDS = ("virtual", "release", "clamp")
VIRTS = ("resume", "restart", "kill")
CURVES = ("linear", "equal-power", "log")
