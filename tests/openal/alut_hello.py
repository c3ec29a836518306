#!/usr/bin/env python3
"""ALUT's hello world over ctypes: alutInit, alutCreateBufferHelloWorld, play,
poll AL_SOURCE_STATE until stopped, alutExit. Prints the buffer's frames and
rate, and how many polls saw AL_PLAYING. Runs on whichever libopenal.so.1
the library path finds first (heliod's, or OpenAL Soft)."""
import ctypes, ctypes.util, sys, time

AL_BUFFER, AL_SOURCE_STATE, AL_PLAYING, AL_STOPPED = 0x1009, 0x1010, 0x1012, 0x1014
AL_FREQUENCY, AL_SIZE = 0x2001, 0x2004

al = ctypes.CDLL("libopenal.so.1")
alut = ctypes.CDLL("libalut.so.0")
if not alut.alutInit(None, None):
    print("alutInit failed: %d" % alut.alutGetError())
    sys.exit(1)
buf = alut.alutCreateBufferHelloWorld()
if not buf:
    print("alutCreateBufferHelloWorld failed")
    sys.exit(1)
freq, size = ctypes.c_int(), ctypes.c_int()
al.alGetBufferi(buf, AL_FREQUENCY, ctypes.byref(freq))
al.alGetBufferi(buf, AL_SIZE, ctypes.byref(size))
src = ctypes.c_uint()
al.alGenSources(1, ctypes.byref(src))
al.alSourcei(src, AL_BUFFER, buf)
al.alSourcePlay(src)
state, playing_polls = ctypes.c_int(), 0
al.alGetSourcei(src, AL_SOURCE_STATE, ctypes.byref(state))
first = state.value
t0 = time.monotonic()
while True:
    al.alGetSourcei(src, AL_SOURCE_STATE, ctypes.byref(state))
    if state.value != AL_PLAYING:
        break
    playing_polls += 1
    time.sleep(0.005)
    if time.monotonic() - t0 > 20:
        print("never stopped")
        sys.exit(1)
elapsed = time.monotonic() - t0
al.alDeleteSources(1, ctypes.byref(src))
b = ctypes.c_uint(buf)
al.alDeleteBuffers(1, ctypes.byref(b))
err = al.alGetError()
if not alut.alutExit():
    print("alutExit failed")
    sys.exit(1)
print("frames=%d rate=%d first=%#x final=%#x playing_polls=%d elapsed=%.3f err=%#x" %
      (size.value // 2, freq.value, first, state.value, playing_polls, elapsed, err))
