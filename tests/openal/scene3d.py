#!/usr/bin/env python3
"""The 3D oracle's scene: a mono DC source at 18 distances x 3 distance models
(30 degrees to the right, so pan counts too), a cone turned to 8 angles, the
listener moved and turned with sources all around it and above, relative
sources.
`scene3d.py soft`: renders each scene on OpenAL Soft's loopback device
(ALC_SOFT_loopback) and prints its left and right gains. `scene3d.py play`:
plays the scenes one after the other on the default device of whichever
libopenal.so.1 the library path finds (heliod's), with alternating signs,
so the recording's segments can be told apart."""
import ctypes, math, sys, time

AL_POSITION, AL_DIRECTION, AL_BUFFER = 0x1004, 0x1005, 0x1009
AL_SOURCE_STATE, AL_PLAYING = 0x1010, 0x1012
AL_REFERENCE_DISTANCE, AL_MAX_DISTANCE, AL_ROLLOFF_FACTOR = 0x1020, 0x1023, 0x1021
AL_CONE_INNER_ANGLE, AL_CONE_OUTER_ANGLE, AL_CONE_OUTER_GAIN = 0x1001, 0x1002, 0x1022
AL_INVERSE_DISTANCE_CLAMPED, AL_LINEAR_DISTANCE_CLAMPED, AL_EXPONENT_DISTANCE_CLAMPED = 0xD002, 0xD004, 0xD006
AL_FORMAT_MONO16 = 0x1101
RATE, FRAMES, AMP = 48000, 1200, 8192

DISTANCES = [0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0, 12.0, 15.0, 20.0, 25.0, 30.0]
MODELS = [AL_INVERSE_DISTANCE_CLAMPED, AL_LINEAR_DISTANCE_CLAMPED, AL_EXPONENT_DISTANCE_CLAMPED]
CONE_ANGLES = [0, 20, 40, 60, 80, 100, 140, 180]


def scenes():
    out = []
    az = math.radians(30)
    for m in MODELS:
        for d in DISTANCES:
            out.append(dict(model=m, pos=(d * math.sin(az), 0.0, -d * math.cos(az)), dir=(0, 0, 0)))
    for a in CONE_ANGLES:  # the source 2 m ahead, its direction turned a degrees from the listener
        r = math.radians(a)
        out.append(dict(model=AL_INVERSE_DISTANCE_CLAMPED, pos=(0.0, 0.0, -2.0),
                        dir=(math.sin(r), 0.0, math.cos(r)), cone=True))
    # the listener turned to face +x and moved: sources all around it, and above
    for a in range(0, 360, 45):
        r = math.radians(a)
        out.append(dict(model=AL_INVERSE_DISTANCE_CLAMPED, lis_pos=(3.0, 0.0, 1.0),
                        lis_at=(1.0, 0.0, 0.0, 0.0, 1.0, 0.0),
                        pos=(3.0 + 2 * math.cos(r), 0.0, 1.0 + 2 * math.sin(r)), dir=(0, 0, 0)))
    out.append(dict(model=AL_INVERSE_DISTANCE_CLAMPED, pos=(1.0, 2.0, -1.0), dir=(0, 0, 0)))
    out.append(dict(model=AL_INVERSE_DISTANCE_CLAMPED, pos=(-0.5, -1.0, 0.5), dir=(0, 0, 0)))
    # relative sources ignore where the listener is and how it is turned
    for pos in ((1.5, 0.0, -1.0), (-3.0, 0.0, 2.0)):
        out.append(dict(model=AL_INVERSE_DISTANCE_CLAMPED, lis_pos=(10.0, 0.0, 4.0),
                        lis_at=(0.0, 0.0, 1.0, 0.0, 1.0, 0.0), rel=True, pos=pos, dir=(0, 0, 0)))
    return out


def setup(al, src):
    al.alSourcef(src, AL_REFERENCE_DISTANCE, ctypes.c_float(1.0))
    al.alSourcef(src, AL_MAX_DISTANCE, ctypes.c_float(50.0))
    al.alSourcef(src, AL_ROLLOFF_FACTOR, ctypes.c_float(1.0))
    al.alSourcef(src, AL_CONE_INNER_ANGLE, ctypes.c_float(60.0))
    al.alSourcef(src, AL_CONE_OUTER_ANGLE, ctypes.c_float(200.0))
    al.alSourcef(src, AL_CONE_OUTER_GAIN, ctypes.c_float(0.2))


AL_ORIENTATION, AL_SOURCE_RELATIVE = 0x100F, 0x202


def apply(al, src, sc):
    f = ctypes.c_float
    al.alListener3f(AL_POSITION, *[f(x) for x in sc.get("lis_pos", (0.0, 0.0, 0.0))])
    al.alListenerfv(AL_ORIENTATION, (f * 6)(*sc.get("lis_at", (0.0, 0.0, -1.0, 0.0, 1.0, 0.0))))
    al.alSourcei(src, AL_SOURCE_RELATIVE, 1 if sc.get("rel") else 0)
    al.alDistanceModel(sc["model"])
    al.alSource3f(src, AL_POSITION, *[f(x) for x in sc["pos"]])
    al.alSource3f(src, AL_DIRECTION, *[f(x) for x in sc["dir"]])


def make_buffers(al, signs):
    bufs = []
    for sign in signs:
        b = ctypes.c_uint()
        al.alGenBuffers(1, ctypes.byref(b))
        data = (ctypes.c_short * FRAMES)(*([sign * AMP] * FRAMES))
        al.alBufferData(b, AL_FORMAT_MONO16, data, FRAMES * 2, RATE)
        bufs.append(b.value)
    return bufs


def soft():
    al = ctypes.CDLL("libopenal.so.1")
    al.alcLoopbackOpenDeviceSOFT.restype = ctypes.c_void_p
    al.alcCreateContext.restype = ctypes.c_void_p
    al.alcCreateContext.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
    al.alcMakeContextCurrent.argtypes = [ctypes.c_void_p]
    al.alcRenderSamplesSOFT.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int]
    dev = al.alcLoopbackOpenDeviceSOFT(None)
    if not dev:
        sys.exit("no loopback device")
    attrs = (ctypes.c_int * 7)(0x1990, 0x1501, 0x1991, 0x1406, 0x1007, RATE, 0)
    ctx = al.alcCreateContext(dev, attrs)
    al.alcMakeContextCurrent(ctx)
    (buf,) = make_buffers(al, [1])
    src = ctypes.c_uint()
    al.alGenSources(1, ctypes.byref(src))
    al.alSourcei(src, AL_BUFFER, buf)
    setup(al, src)
    out = (ctypes.c_float * (2 * 1024))()
    for i, sc in enumerate(scenes()):
        al.alSourceStop(src)
        apply(al, src, sc)
        al.alSourcePlay(src)
        al.alcRenderSamplesSOFT(dev, out, 1024)
        n = 512
        l = sum(out[2 * k] for k in range(512, 1024)) / n / (AMP / 32768.0)
        r = sum(out[2 * k + 1] for k in range(512, 1024)) / n / (AMP / 32768.0)
        print("%d %.6f %.6f" % (i, l, r))
    al.alcMakeContextCurrent(None)


def play():
    al = ctypes.CDLL("libopenal.so.1")
    al.alcOpenDevice.restype = ctypes.c_void_p
    al.alcCreateContext.restype = ctypes.c_void_p
    al.alcCreateContext.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
    al.alcMakeContextCurrent.argtypes = [ctypes.c_void_p]
    dev = al.alcOpenDevice(None)
    if not dev:
        sys.exit("alcOpenDevice failed")
    ctx = al.alcCreateContext(dev, None)
    al.alcMakeContextCurrent(ctx)
    bufs = make_buffers(al, [1, -1])
    src = ctypes.c_uint()
    al.alGenSources(1, ctypes.byref(src))
    setup(al, src)
    state = ctypes.c_int()
    for i, sc in enumerate(scenes()):
        al.alSourcei(src, AL_BUFFER, bufs[i % 2])
        apply(al, src, sc)
        al.alSourcePlay(src)
        t0 = time.monotonic()
        while True:
            al.alGetSourcei(src, AL_SOURCE_STATE, ctypes.byref(state))
            if state.value != AL_PLAYING:
                break
            if time.monotonic() - t0 > 10:
                sys.exit("scene %d never stopped" % i)
            time.sleep(0.002)
    err = al.alGetError()
    print("scenes=%d err=%#x" % (len(scenes()), err))


# Doppler: a 1 kHz mono sine; (source velocity, listener velocity, doppler
# factor, speed of sound) per scene, the source 10 m ahead.
DOPPLER = [((0, 0, 20), (0, 0, 0), 1.0, 343.3), ((0, 0, -20), (0, 0, 0), 1.0, 343.3),
           ((0, 0, 0), (0, 0, -30), 1.0, 343.3), ((0, 0, 15), (0, 0, 0), 2.0, 343.3),
           ((0, 0, 15), (0, 0, 0), 1.0, 250.0), ((10, 0, 0), (0, 0, 0), 1.0, 343.3)]
AL_VELOCITY = 0x1006


def sine_buffer(al, seconds):
    n = int(RATE * seconds)
    b = ctypes.c_uint()
    al.alGenBuffers(1, ctypes.byref(b))
    data = (ctypes.c_short * n)(*[int(AMP * math.sin(2 * math.pi * 1000 * i / RATE)) for i in range(n)])
    al.alBufferData(b, AL_FORMAT_MONO16, data, n * 2, RATE)
    return b.value


def apply_doppler(al, src, sc):
    f = ctypes.c_float
    vs, vl, df, ss = sc
    al.alDopplerFactor(f(df))
    al.alSpeedOfSound(f(ss))
    al.alSource3f(src, AL_POSITION, f(0), f(0), f(-10))
    al.alSource3f(src, AL_VELOCITY, *[f(x) for x in vs])
    al.alListener3f(AL_VELOCITY, *[f(x) for x in vl])


def freq_of(x, rate):
    """Frequency from the first and last upward zero crossings (interpolated)."""
    ups = [i + x[i] / (x[i] - x[i + 1]) for i in range(len(x) - 1) if x[i] <= 0 < x[i + 1]]
    return (len(ups) - 1) / ((ups[-1] - ups[0]) / rate) if len(ups) > 2 else 0.0


def doppler_soft():
    al, dev = loopback()
    buf = sine_buffer(al, 0.5)
    src = ctypes.c_uint()
    al.alGenSources(1, ctypes.byref(src))
    al.alSourcei(src, AL_BUFFER, buf)
    out = (ctypes.c_float * (2 * 8192))()
    for i, sc in enumerate(DOPPLER):
        al.alSourceStop(src)
        apply_doppler(al, src, sc)
        al.alSourcePlay(src)
        al.alcRenderSamplesSOFT(dev, out, 8192)
        left = [out[2 * k] for k in range(1024, 8192)]
        print("%d %.4f" % (i, freq_of(left, RATE)))


def loopback():
    al = ctypes.CDLL("libopenal.so.1")
    al.alcLoopbackOpenDeviceSOFT.restype = ctypes.c_void_p
    al.alcCreateContext.restype = ctypes.c_void_p
    al.alcCreateContext.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
    al.alcMakeContextCurrent.argtypes = [ctypes.c_void_p]
    al.alcRenderSamplesSOFT.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int]
    dev = al.alcLoopbackOpenDeviceSOFT(None)
    if not dev:
        sys.exit("no loopback device")
    attrs = (ctypes.c_int * 7)(0x1990, 0x1501, 0x1991, 0x1406, 0x1007, RATE, 0)
    ctx = al.alcCreateContext(dev, attrs)
    al.alcMakeContextCurrent(ctx)
    return al, dev


def doppler_play():
    al = ctypes.CDLL("libopenal.so.1")
    al.alcOpenDevice.restype = ctypes.c_void_p
    al.alcCreateContext.restype = ctypes.c_void_p
    al.alcCreateContext.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
    al.alcMakeContextCurrent.argtypes = [ctypes.c_void_p]
    dev = al.alcOpenDevice(None)
    ctx = al.alcCreateContext(dev, None)
    al.alcMakeContextCurrent(ctx)
    buf = sine_buffer(al, 0.15)
    src = ctypes.c_uint()
    al.alGenSources(1, ctypes.byref(src))
    al.alSourcei(src, AL_BUFFER, buf)
    state = ctypes.c_int()
    for sc in DOPPLER:
        apply_doppler(al, src, sc)
        al.alSourcePlay(src)
        while True:
            al.alGetSourcei(src, AL_SOURCE_STATE, ctypes.byref(state))
            if state.value != AL_PLAYING:
                break
            time.sleep(0.002)
        time.sleep(0.05)  # a gap of silence between the scenes
    print("scenes=%d err=%#x" % (len(DOPPLER), al.alGetError()))


if __name__ == "__main__":
    {"soft": soft, "play": play, "doppler-soft": doppler_soft,
     "doppler-play": doppler_play}[sys.argv[1]]()
