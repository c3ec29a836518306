#!/usr/bin/env python3
"""AL_EXT_MCFORMATS: every channel of every multichannel layout (REAR, QUAD,
5.1, 6.1, 7.1) in 8-bit, 16-bit and float, one at a time as DC at a quarter
of full scale (LFE together with the front left, so that its segment is not
silent). `mcformats.py soft`: renders each on OpenAL Soft's stereo loopback
device and prints its left and right levels. `mcformats.py play`: plays them
one after the other on the default device of whichever libopenal.so.1 the
library path finds (heliod's), with alternating signs, so the recording's
segments can be told apart, and checks the buffer queries."""
import ctypes, struct, sys, time

RATE, FRAMES, AMP = 48000, 1200, 0.25
LAYOUTS = [("REAR", 2, None), ("QUAD", 4, None), ("51CHN", 6, 3), ("61CHN", 7, 3), ("71CHN", 8, 3)]
BITS = {"8": 8, "16": 16, "32": 32}
AL_BUFFER, AL_SOURCE_STATE, AL_PLAYING = 0x1009, 0x1010, 0x1012
AL_BITS, AL_CHANNELS, AL_SIZE, AL_BYTE_OFFSET = 0x2002, 0x2003, 0x2004, 0x1026


def scenes():
    """(format name, channels, the channels carrying DC)."""
    out = []
    for depth in ("8", "16", "32"):
        for name, ch, lfe in LAYOUTS:
            for k in range(ch):
                out.append(("AL_FORMAT_%s%s" % (name, depth), ch, (0, k) if k == lfe else (k,)))
    return out


def pcm(ch, on, depth, sign):
    bits = BITS[depth]
    v = [0.0] * ch
    for k in on:
        v[k] = sign * AMP
    if bits == 8:
        frame = bytes(int(128 + x * 128) for x in v)
    elif bits == 16:
        frame = struct.pack("<%dh" % ch, *[int(x * 32768) for x in v])
    else:
        frame = struct.pack("<%df" % ch, *v)
    return frame * FRAMES


def make_buffer(al, sc, sign):
    fmt_name, ch, on = sc
    fmt = al.alGetEnumValue(fmt_name.encode())
    if fmt in (0, -1):
        sys.exit("alGetEnumValue(%s) = %d" % (fmt_name, fmt))
    data = pcm(ch, on, fmt_name[-2:].lstrip("HNDAR"), sign)
    b = ctypes.c_uint()
    al.alGenBuffers(1, ctypes.byref(b))
    al.alBufferData(b, fmt, data, len(data), RATE)
    return b.value, len(data)


def lib():
    al = ctypes.CDLL("libopenal.so.1")
    al.alcOpenDevice.restype = ctypes.c_void_p
    al.alcCreateContext.restype = ctypes.c_void_p
    al.alcCreateContext.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
    al.alcMakeContextCurrent.argtypes = [ctypes.c_void_p]
    al.alGetEnumValue.argtypes = [ctypes.c_char_p]
    al.alIsExtensionPresent.argtypes = [ctypes.c_char_p]
    al.alSourcef.argtypes = [ctypes.c_uint, ctypes.c_int, ctypes.c_float]
    return al


def soft():
    al = lib()
    al.alcLoopbackOpenDeviceSOFT.restype = ctypes.c_void_p
    al.alcRenderSamplesSOFT.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int]
    dev = al.alcLoopbackOpenDeviceSOFT(None)
    if not dev:
        sys.exit("no loopback device")
    attrs = (ctypes.c_int * 7)(0x1990, 0x1501, 0x1991, 0x1406, 0x1007, RATE, 0)
    al.alcMakeContextCurrent(al.alcCreateContext(dev, attrs))
    src = ctypes.c_uint()
    al.alGenSources(1, ctypes.byref(src))
    out = (ctypes.c_float * (2 * 1024))()
    for i, sc in enumerate(scenes()):
        b, _ = make_buffer(al, sc, 1)
        al.alSourcei(src, AL_BUFFER, b)
        al.alSourcePlay(src)
        al.alcRenderSamplesSOFT(dev, out, 1024)
        l = sum(out[2 * k] for k in range(512, 1024)) / 512 / AMP
        r = sum(out[2 * k + 1] for k in range(512, 1024)) / 512 / AMP
        print("%d %.6f %.6f" % (i, l, r))
        al.alSourceStop(src)
        al.alSourcei(src, AL_BUFFER, 0)
        al.alDeleteBuffers(1, ctypes.byref(ctypes.c_uint(b)))
    al.alcMakeContextCurrent(None)


def play():
    al = lib()
    dev = al.alcOpenDevice(None)
    if not dev:
        sys.exit("alcOpenDevice failed")
    al.alcMakeContextCurrent(al.alcCreateContext(dev, None))
    print("AL_EXT_MCFORMATS=%d" % al.alIsExtensionPresent(b"AL_EXT_MCFORMATS"))
    src = ctypes.c_uint()
    al.alGenSources(1, ctypes.byref(src))
    state, v = ctypes.c_int(), ctypes.c_int()
    for i, sc in enumerate(scenes()):
        b, size = make_buffer(al, sc, 1 if i % 2 == 0 else -1)
        got = []
        for q in (AL_CHANNELS, AL_BITS, AL_SIZE):
            al.alGetBufferi(b, q, ctypes.byref(v))
            got.append(v.value)
        want = [sc[1], BITS[sc[0][-2:].lstrip("HNDAR")], size]
        if got != want:
            sys.exit("%s: channels, bits, size %r, want %r" % (sc[0], got, want))
        al.alSourcei(src, AL_BUFFER, b)
        al.alSourcePlay(src)
        t0 = time.monotonic()
        while True:
            al.alGetSourcei(src, AL_SOURCE_STATE, ctypes.byref(state))
            if state.value != AL_PLAYING:
                break
            if time.monotonic() - t0 > 10:
                sys.exit("scene %d never stopped" % i)
            time.sleep(0.002)
        al.alSourcei(src, AL_BUFFER, 0)
        al.alDeleteBuffers(1, ctypes.byref(ctypes.c_uint(b)))
    # the byte offset counts the program's frames (8 channels x 2 bytes)
    b, _ = make_buffer(al, ("AL_FORMAT_71CHN16", 8, (0,)), 1)
    al.alGenSources(1, ctypes.byref(src))
    al.alSourcei(src, AL_BUFFER, b)
    al.alSourcef(src.value, 0x100A, 0.0)  # AL_GAIN 0: not in the recording
    al.alSourcePlay(src)
    al.alSourcei(src, AL_BYTE_OFFSET, 16 * 100)  # frame 100
    al.alSourcePause(src)
    al.alGetSourcei(src, AL_BYTE_OFFSET, ctypes.byref(v))
    smp = ctypes.c_int()
    al.alGetSourcei(src, 0x1025, ctypes.byref(smp))  # AL_SAMPLE_OFFSET
    print("byte_offset_ok=%d (%d bytes, %d frames)" % (smp.value >= 100 and v.value == 16 * smp.value, v.value, smp.value))
    print("scenes=%d err=%#x" % (len(scenes()), al.alGetError()))


if __name__ == "__main__":
    {"soft": soft, "play": play}[sys.argv[1]]()
