"""stream - client-fed streams (STREAM, PROTOCOL.md "Client-fed streams"):
a voice that plays PCM this process pushes through a ring in a sealed memfd
shared with the daemon, as libheliod's heliod_stream_* do.

    s = client.stream(rate=48000, channels=2, format="s16")
    while data:
        n = s.write(data)          # frames accepted, never blocks
        data = data[n * s.frame_size:]
        if data:
            s.wait(0.1)            # room, or the timeout
    s.end()                        # plays out what is queued, then ENDED
    s.close()                      # stops it now if it still plays

Python has no atomics: the header's counters are read and written as
aligned 8- and 4-byte words through the mapping, and the ring's bytes are
copied before `write` is stored (in program order), which is what the
protocol asks on the little-endian machines heliod runs on (x86-64, where
stores are not reordered with stores nor loads with loads). One writer per
stream; wait() polls the daemon's `read` every millisecond (no futex from
Python). Linux only (os.memfd_create, socket.send_fds).
"""

import asyncio
import fcntl
import mmap
import os
import socket as _socket
import struct
import time

from ._wire import EINVAL, HeliodError, W

FORMATS = {"f32": (0, 4), "s16": (1, 2), "u8": (2, 1)}
HDR = 256
MAGIC, VERSION = 0x4d53484c, 1
MIN_FRAMES, MAX_FRAMES = 256, 4194304
END_NAMES = ("finished", "stopped", "stolen", "owner", "shutdown", "evicted", "distance",
             "emitter", "killed", "lifetime")


def _pow2(n):
    p = MIN_FRAMES
    while p < n and p < MAX_FRAMES:
        p <<= 1
    return p


def enc_stream(rate, channels, fmt, frames, size, play_body):
    """The STREAM body: rate, channels, format, frames, size, then a PLAY body."""
    return W().u32(rate).u8(channels).u8(fmt).u32(frames).u64(size).b + play_body


class Stream:
    """A client-fed stream: .voice (its handle), .rate, .channels, .format,
    .frames (ring capacity), .frame_size (bytes per frame)."""

    def __init__(self, client, voice, mem, fd, frames, channels, fmt_name, rate):
        self._c, self.voice, self._m, self._fd = client, voice, mem, fd
        self.frames, self.channels, self.format, self.rate = frames, channels, fmt_name, rate
        self.frame_size = channels * FORMATS[fmt_name][1]
        self._w, self._ended_by_writer = 0, False

    # header words: write 64, eos 72, waiting 76, read 128, underruns 136, state 144
    def _u64(self, off):
        return struct.unpack_from("<Q", self._m, off)[0]

    def _u32(self, off):
        return struct.unpack_from("<I", self._m, off)[0]

    @property
    def consumed(self):
        """Frames the daemon has taken from the ring (no round trip)."""
        return self._u64(128)

    @property
    def underruns(self):
        """Underrun episodes the voice counted."""
        return self._u64(136)

    def ended(self):
        """None while the voice lives, else its end reason ("finished" once
        an ended stream played out)."""
        st = self._u32(144)
        if not st:
            return None
        return END_NAMES[st - 1] if st - 1 < len(END_NAMES) else "reason %d" % (st - 1)

    def writable(self):
        """Frames write() would accept now."""
        if self._u32(144):
            return 0
        used = self._w - self.consumed
        return 0 if used >= self.frames else self.frames - used

    def write(self, data):
        """Copies as many whole frames of `data` (bytes-like, interleaved, the
        stream's format) as fit; returns the frames accepted. Never blocks."""
        if self._ended_by_writer:
            return 0
        data = memoryview(data).cast("B")
        n = min(len(data) // self.frame_size, self.writable())
        done = 0
        while done < n:
            idx = (self._w + done) % self.frames
            run = min(self.frames - idx, n - done)
            at = HDR + idx * self.frame_size
            self._m[at:at + run * self.frame_size] = \
                data[done * self.frame_size:(done + run) * self.frame_size]
            done += run
        if n:
            self._w += n
            struct.pack_into("<Q", self._m, 64, self._w)  # after the frames
        return n

    def wait(self, timeout=None):
        """Waits until write() would accept a frame or the voice ended, or
        timeout seconds passed; returns True (room or ended) or False."""
        end = None if timeout is None else time.monotonic() + timeout
        while not self.writable() and not self.ended():
            if end is not None and time.monotonic() >= end:
                return False
            time.sleep(0.001)
        return True

    def end(self):
        """No more frames: the voice plays what the ring holds, then ends."""
        self._ended_by_writer = True
        struct.pack_into("<I", self._m, 72, 1)

    def close(self):
        """Stops the voice now unless it ended, and unmaps the ring. Call it
        from the connection's thread."""
        if self._m is None:
            return
        if not self.ended():
            try:
                self._c.stop(self.voice)
            except HeliodError:
                pass
        self._m.close()
        self._m = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class AsyncStream(Stream):
    """AsyncClient.stream's stream: write(), writable(), end(), consumed,
    underruns and ended() as Stream's (no round trip, never block); wait()
    and close() are coroutines; `async with` closes it."""

    async def wait(self, timeout=None):
        """Awaits room for a frame or the voice's end (polled every
        millisecond), or timeout seconds; True (room or ended) or False."""
        end = None if timeout is None else time.monotonic() + timeout
        while not self.writable() and not self.ended():
            if end is not None and time.monotonic() >= end:
                return False
            await asyncio.sleep(0.001)
        return True

    async def close(self):
        """Stops the voice now unless it ended, and unmaps the ring."""
        if self._m is None:
            return
        if not self.ended():
            try:
                await self._c.stop(self.voice)
            except HeliodError:
                pass
        self._m.close()
        self._m = None

    async def __aenter__(self):
        return self

    async def __aexit__(self, *exc):
        await self.close()


def _make_ring(client, rate, channels, fmt, frames):
    """The sealed memfd and its header; (fd, mapping, frames, rate)."""
    if fmt not in FORMATS:
        raise HeliodError(EINVAL, "format: f32, s16 or u8")
    if channels not in (1, 2):
        raise HeliodError(EINVAL, "channels: must be 1 or 2")
    if rate and not 8000 <= rate <= 384000:
        raise HeliodError(EINVAL, "rate: must be 0 or in [8000, 384000] Hz")
    code, ss = FORMATS[fmt]
    real_rate = rate or client.info["rate"]
    frames = _pow2(frames or real_rate // 4)
    size = HDR + frames * channels * ss
    fd = os.memfd_create("heliod-stream", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
    try:
        os.ftruncate(fd, size)
        mem = mmap.mmap(fd, size)
        fcntl.fcntl(fd, fcntl.F_ADD_SEALS,
                    fcntl.F_SEAL_SEAL | fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW)
        struct.pack_into("<6I", mem, 0, MAGIC, VERSION, frames, channels, code, real_rate)
    except BaseException:
        os.close(fd)
        raise
    return fd, mem, frames, real_rate, enc_stream(rate, channels, code, frames, size, b"")


def open_stream(client, rate, channels, fmt, frames, play_body):
    """Client.stream's work: the memfd, its header, STREAM with the descriptor."""
    fd, mem, frames, real_rate, head = _make_ring(client, rate, channels, fmt, frames)
    try:
        voice = client._stream_request(fd, head + play_body)
    except BaseException:
        mem.close()
        raise
    finally:
        os.close(fd)  # the daemon has its own
    return Stream(client, voice, mem, None, frames, channels, fmt, real_rate)


async def open_stream_async(client, rate, channels, fmt, frames, play_body):
    """AsyncClient.stream's work: the same, the request sent on the event loop's socket."""
    fd, mem, frames, real_rate, head = _make_ring(client, rate, channels, fmt, frames)
    try:
        voice = await client._stream_request(fd, head + play_body)
    except BaseException:
        mem.close()
        raise
    finally:
        os.close(fd)
    return AsyncStream(client, voice, mem, None, frames, channels, fmt, real_rate)


def send_with_fd(sock, data, fd):
    """Sends a frame with fd riding on its first byte (SCM_RIGHTS)."""
    sent = _socket.send_fds(sock, [data], [fd])
    if sent < len(data):
        sock.sendall(data[sent:])


async def send_with_fd_async(writer, data, fd):
    """The same on an asyncio StreamWriter's socket: what the writer buffered
    goes first (frames keep their order), then the frame with the descriptor
    on a duplicate of the socket (the same connection); a partial send's
    rest goes through the writer."""
    await writer.drain()
    transport = writer.transport
    while transport.get_write_buffer_size():
        await asyncio.sleep(0.001)
    sock = _socket.socket(fileno=os.dup(writer.get_extra_info("socket").fileno()))
    try:
        while True:
            try:
                sent = _socket.send_fds(sock, [data], [fd])
                break
            except BlockingIOError:
                await asyncio.sleep(0.001)
    finally:
        sock.close()  # the duplicate only
    if sent < len(data):
        writer.write(data[sent:])
        await writer.drain()
