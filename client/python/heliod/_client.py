"""_client - the two connections over one set of calls (_calls._Calls):
Client (blocking sockets) and AsyncClient (asyncio streams)."""

import asyncio
import fcntl
import os
import socket as _socket
import struct
import time

from ._bodies import (LOAD_PIN, LOAD_SHARED, dec_count, dec_hello, dec_play_reply, dec_sound,
                      enc_load_fd, enc_play, hello_body)
from ._wire import (ECLOSED, ECONNECT, EINVAL, EPROTO, ETIMEDOUT, FLAG_NOREPLY, FRAME_HDR,
                    MAX_FRAME, MAX_UPLOAD, OP, OP_EVENT, OP_REPLY, SCHEDULABLE, HeliodError,
                    default_socket, frame, refused_as_1_0, reply_reader)
from ._calls import _Calls
from .events import Event
from .stream import open_stream, open_stream_async, send_with_fd, send_with_fd_async


def _bundle_check(name):
    if name not in SCHEDULABLE and name != "bundle_end":
        raise HeliodError(EINVAL, "%s inside a bundle: a bundle holds play, stop, set, bus, "
                          "listener and music requests only" % name)


class Pending:
    """The reply to a request a bundle holds: the daemon answers it at
    bundle_end(). done() says whether it came; result() gives the call's
    value (a voice handle for play) or raises its HeliodError."""

    def __init__(self, op, decode):
        self.op, self._decode = op, decode
        self._done, self._value, self._error = False, None, None

    def _resolve(self, body, flags):
        try:
            r, late = reply_reader(body, self.op, flags)
            self._value = self._decode(r)
        except HeliodError as e:
            late, self._error = None, e
        self._done = True
        return late

    def done(self):
        return self._done

    def result(self):
        if not self._done:
            raise HeliodError(EINVAL, "no reply yet: its bundle has not ended")
        if self._error:
            raise self._error
        return self._value


class Bundle:
    """`with c.bundle() as b:` ... `b.count` = requests the bundle carried
    (`async with` for AsyncClient). The block's play, stop, set, bus and
    listener calls are applied together in one audio block at its end; in
    the blocking Client they return Pending objects. An exception inside
    the block still ends the bundle (the protocol cannot drop one short of
    closing the connection)."""

    def __init__(self, client):
        self._c, self.count = client, None

    def __enter__(self):
        self._c.bundle_begin()
        return self

    def __exit__(self, *exc):
        self.count = self._c.bundle_end()

    async def __aenter__(self):
        await self._c.bundle_begin()
        return self

    async def __aexit__(self, *exc):
        self.count = await self._c.bundle_end()


class Client(_Calls):
    """A blocking connection. Events that arrive while a call waits for its
    reply are kept for events()."""

    def __init__(self, socket=None, name="python", control=False, timeout=5.0):
        self.path = socket or default_socket()
        self.timeout = timeout
        self._dial()
        try:
            self.info = self._request(OP["hello"], hello_body(name, control), dec_hello, 0)
        except HeliodError as e:
            if not refused_as_1_0(e):
                self._s.close()
                raise
            # a daemon of protocol 1.0 refused our minor and closed: speak 1.0 to it
            self._s.close()
            self._dial()
            try:
                self.info = self._request(OP["hello"], hello_body(name, control, 0), dec_hello, 0)
            except HeliodError:
                self._s.close()
                raise

    def _dial(self):
        self._s = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
        self._s.settimeout(self.timeout)
        try:
            self._s.connect(self.path)
        except OSError as e:
            self._s.close()
            raise HeliodError(ECONNECT, "%s: %s" % (self.path, e.strerror)) from None
        self._buf = bytearray()
        self._events = []
        self._id = 0

    def close(self):
        self._s.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _read_frame(self, timeout):
        """The next frame (op, flags, id, body), or None after timeout seconds."""
        self._s.settimeout(timeout)
        while True:
            if len(self._buf) >= FRAME_HDR:
                size, op, flags, rid = struct.unpack_from("<IHHI", self._buf)
                if size < FRAME_HDR or size > MAX_FRAME:
                    raise HeliodError(EPROTO, "bad frame size %d" % size)
                if len(self._buf) >= size:
                    body = bytes(self._buf[FRAME_HDR:size])
                    del self._buf[:size]
                    return op, flags, rid, body
            try:
                data = self._s.recv(65536)
            except _socket.timeout:
                return None
            if not data:
                raise HeliodError(ECLOSED, "the daemon closed the connection")
            self._buf += data

    def _send(self, op, body, flags):
        self._id = self._id % 0xFFFFFFFF + 1
        self._s.sendall(frame(op, self._id, body, flags))
        return self._id

    def _take(self, fop, fflags, frid, fbody):
        """A frame that is not the awaited reply: an event, or a held request's reply."""
        if fop == OP_EVENT:
            self._events.append(Event(frid, fbody))
        elif fop == OP_REPLY and self._bundle and frid in self._bundle:
            late = self._bundle.pop(frid)._resolve(fbody, fflags)
            if late is not None:
                self.late_frames = late

    def _request(self, op, body, decode, flags):
        return self._await_reply(self._send(op, body, flags), op, decode)

    def _await_reply(self, rid, op, decode):
        deadline = time.monotonic() + self.timeout
        while True:
            left = deadline - time.monotonic()
            f = self._read_frame(max(left, 0.001)) if left > 0 else None
            if f is None:
                raise HeliodError(ETIMEDOUT, "no reply within %.1f s" % self.timeout)
            fop, fflags, frid, fbody = f
            if fop == OP_REPLY and frid == rid:
                r, late = reply_reader(fbody, op, fflags)
                if late is not None:
                    self.late_frames = late
                return decode(r)
            self._take(*f)

    def _call(self, name, body, decode, at=None, noreply=False):
        flags, body = self._scheduled(name, body, at)
        flags |= FLAG_NOREPLY if noreply else 0
        if self._bundle is not None and name != "bundle_end":
            _bundle_check(name)
            rid = self._send(OP[name], body, flags)
            if noreply:
                return None
            p = self._bundle[rid] = Pending(OP[name], decode)
            return p
        if noreply:
            self._send(OP[name], body, flags)
            return None
        return self._request(OP[name], body, decode, flags)

    def load_memory(self, name, data, shared=False, pin=False):
        """Uploads an encoded file (bytes) as heliod_load_memory() does: in a
        sealed memfd passed with SCM_RIGHTS (LOAD_FD), or in LOAD_DATA
        chunks where that is not available (no memfd_create, inside a
        bundle, HELIOD_UPLOAD=chunks, a daemon without LOAD_FD). Returns the
        SOUND_INFO dict once the daemon decoded it."""
        data = bytes(data)
        if (self._bundle is None and os.environ.get("HELIOD_UPLOAD") != "chunks"
                and 1 <= len(data) <= MAX_UPLOAD and hasattr(os, "memfd_create")
                and hasattr(_socket, "send_fds")):
            try:
                fd = os.memfd_create("heliod-upload", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
            except OSError:
                fd = -1
            if fd >= 0:
                try:
                    info = self._load_fd(fd, name, data, shared, pin)
                finally:
                    os.close(fd)  # the daemon holds its own once sent
                if info is not None:
                    return info
        return super().load_memory(name, data, shared, pin)

    def _load_fd(self, fd, name, data, shared, pin):
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        seals = fcntl.F_SEAL_SEAL | fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW | fcntl.F_SEAL_WRITE
        fcntl.fcntl(fd, fcntl.F_ADD_SEALS, seals)
        flags = (LOAD_SHARED if shared else 0) | (LOAD_PIN if pin else 0)
        self._id = self._id % 0xFFFFFFFF + 1
        rid = self._id
        f = frame(OP["load_fd"], rid, enc_load_fd(name, flags, len(data)), 0)
        sent = _socket.send_fds(self._s, [f], [fd])  # the descriptor rides on the first byte
        if sent < len(f):
            self._s.sendall(f[sent:])
        try:
            return self._await_reply(rid, OP["load_fd"], dec_sound)
        except HeliodError as e:
            if e.name == "EBADOP":  # an older daemon: chunks
                return None
            raise

    def stream(self, rate=0, channels=2, format="f32", frames=0, **play):
        """Opens a client-fed stream (protocol 1.1): a voice that plays the
        PCM written to the returned stream.Stream. rate (0: the engine's),
        channels 1|2, format "f32", "s16" or "u8", frames = ring capacity
        (rounded up to a power of two; 0: about 0.25 s); the other keywords
        are play()'s (gain_db, pan, pos, pitch, interp, priority,
        fade_in_ms, bus, ...; not loop or detached)."""
        if self._bundle is not None:
            raise HeliodError(EINVAL, "stream inside a bundle")
        if self.info.get("minor", 0) < 1:
            raise HeliodError(-2, "stream: the daemon speaks protocol 1.0")
        return open_stream(self, rate, channels, format, frames, enc_play("stream", **play))

    def _stream_request(self, fd, body):
        self._id = self._id % 0xFFFFFFFF + 1
        rid = self._id
        send_with_fd(self._s, frame(OP["stream"], rid, body, 0), fd)
        return self._await_reply(rid, OP["stream"], dec_play_reply)

    def _run(self, gen):
        """Drives a multi-request call (a generator of (name, body, decode))."""
        try:
            req = next(gen)
            while True:
                req = gen.send(self._call(*req))
        except StopIteration as e:
            return e.value

    def bundle_begin(self):
        """Opens a bundle: the play, stop, set, bus and listener calls up to
        bundle_end() return Pending objects and are applied together, in
        one audio block (each at its own frame when scheduled). At most 64."""
        if self._bundle is not None:
            raise HeliodError(EINVAL, "a bundle is already open")
        # no reply: a failure arrives as an ERROR event (and BUNDLE_END says so)
        self._send(OP["bundle_begin"], b"", FLAG_NOREPLY)
        self._bundle = {}

    def bundle_end(self):
        """Sends the bundle; returns how many requests it carried, once every
        held request's Pending has its reply."""
        if self._bundle is None:
            raise HeliodError(EINVAL, "no bundle open")
        try:
            return self._call("bundle_end", b"", dec_count)
        finally:
            left, self._bundle = self._bundle, None
            for p in left.values():  # unanswered: the connection failed meanwhile
                p._done, p._error = True, HeliodError(ECLOSED, "no reply to a bundled request")

    def bundle(self):
        """The bundle as a context manager: `with c.bundle() as b:`."""
        return Bundle(self)

    def events(self, timeout=None, duration=None):
        """Yields events as they come; stops after timeout seconds without
        one (None: waits forever), or once duration seconds have passed."""
        end = time.monotonic() + duration if duration is not None else None
        while True:
            while self._events:
                yield self._events.pop(0)
            wait = timeout
            if end is not None:
                left = end - time.monotonic()
                if left <= 0:
                    return
                wait = left if wait is None else min(wait, left)
            f = self._read_frame(wait)
            if f is None:
                return
            self._take(*f)


class AsyncClient(_Calls):
    """The same calls for asyncio: `c = await AsyncClient.connect(...)`, then
    `await c.play(...)`; events with `await c.next_event()`. Each call writes
    its request at once and returns an awaitable of the reply, so requests
    may be issued concurrently (replies are matched by id) and keep the
    order they were made in. Inside a bundle, keep the awaitables and await
    them after bundle_end(): their replies come at its end."""

    @classmethod
    async def connect(cls, socket=None, name="python", control=False, timeout=5.0):
        self = cls()
        self.path = socket or default_socket()
        self.timeout = timeout
        await self._dial()
        try:
            self.info = await self._start(OP["hello"], hello_body(name, control), dec_hello, 0)
        except HeliodError as e:
            await self.close()
            if not refused_as_1_0(e):
                raise
            # a daemon of protocol 1.0 refused our minor and closed: speak 1.0 to it
            await self._dial()
            try:
                self.info = await self._start(OP["hello"], hello_body(name, control, 0),
                                              dec_hello, 0)
            except HeliodError:
                await self.close()
                raise
        return self

    async def _dial(self):
        try:
            self._r, self._w = await asyncio.open_unix_connection(self.path)
        except OSError as e:
            raise HeliodError(ECONNECT, "%s: %s" % (self.path, e.strerror)) from None
        self._id = 0
        self._pending = {}
        self._in_bundle = False
        self._closed = None
        self._events = asyncio.Queue()
        self._reader = asyncio.ensure_future(self._read_loop())

    async def _read_loop(self):
        err = HeliodError(ECLOSED, "the daemon closed the connection")
        try:
            while True:
                hdr = await self._r.readexactly(FRAME_HDR)
                size, op, flags, rid = struct.unpack("<IHHI", hdr)
                if size < FRAME_HDR or size > MAX_FRAME:
                    err = HeliodError(EPROTO, "bad frame size %d" % size)
                    break
                body = await self._r.readexactly(size - FRAME_HDR)
                if op == OP_EVENT:
                    self._events.put_nowait(Event(rid, body))
                elif op == OP_REPLY and rid in self._pending:
                    self._pending.pop(rid).set_result((body, flags))
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        except HeliodError as e:  # an event this client cannot decode
            err = e
        self._closed = err
        for fut in self._pending.values():
            if not fut.done():
                fut.set_exception(err)
        self._pending.clear()
        self._events.put_nowait(None)  # wakes next_event(): the connection is gone

    def _write(self, op, body, flags):
        if self._closed:
            raise self._closed
        self._id = self._id % 0xFFFFFFFF + 1
        self._w.write(frame(op, self._id, body, flags))
        return self._id

    def _start(self, op, body, decode, flags):
        """Writes a request now; returns a Task of its decoded reply."""
        rid = self._write(op, body, flags)
        fut = asyncio.get_running_loop().create_future()
        self._pending[rid] = fut
        return asyncio.ensure_future(self._finish(rid, fut, op, decode))

    async def _finish(self, rid, fut, op, decode):
        await self._w.drain()
        try:
            body, flags = await asyncio.wait_for(fut, self.timeout)
        except asyncio.TimeoutError:
            self._pending.pop(rid, None)
            raise HeliodError(ETIMEDOUT, "no reply within %.1f s" % self.timeout) from None
        r, late = reply_reader(body, op, flags)
        if late is not None:
            self.late_frames = late
        return decode(r)

    async def _nothing(self):
        await self._w.drain()

    def _call(self, name, body, decode, at=None, noreply=False):
        flags, body = self._scheduled(name, body, at)
        if self._in_bundle:
            _bundle_check(name)
        if noreply:
            self._write(OP[name], body, flags | FLAG_NOREPLY)
            return self._nothing()
        return self._start(OP[name], body, decode, flags)

    def _run(self, gen):
        async def drive():
            try:
                req = next(gen)
                while True:
                    req = gen.send(await self._call(*req))
            except StopIteration as e:
                return e.value
        return drive()

    def bundle_begin(self):
        """Opens a bundle (see Client.bundle_begin); returns an awaitable."""
        if self._in_bundle:
            raise HeliodError(EINVAL, "a bundle is already open")
        self._write(OP["bundle_begin"], b"", FLAG_NOREPLY)
        self._in_bundle = True
        return self._nothing()

    def bundle_end(self):
        """Sends the bundle; an awaitable of how many requests it carried."""
        if not self._in_bundle:
            raise HeliodError(EINVAL, "no bundle open")
        t = self._call("bundle_end", b"", dec_count)
        self._in_bundle = False
        return t

    def bundle(self):
        """`async with c.bundle() as b:` (b.count after the block)."""
        return Bundle(self)

    def stream(self, rate=0, channels=2, format="f32", frames=0, **play):
        """Opens a client-fed stream, as Client.stream; a coroutine of a
        stream.AsyncStream (write() as Stream's; wait() and close() awaited)."""
        if self._in_bundle:
            raise HeliodError(EINVAL, "stream inside a bundle")
        if self.info.get("minor", 0) < 1:
            raise HeliodError(-2, "stream: the daemon speaks protocol 1.0")
        return open_stream_async(self, rate, channels, format, frames, enc_play("stream", **play))

    async def _stream_request(self, fd, body):
        if self._closed:
            raise self._closed
        self._id = self._id % 0xFFFFFFFF + 1
        rid = self._id
        fut = asyncio.get_running_loop().create_future()
        self._pending[rid] = fut
        try:
            await send_with_fd_async(self._w, frame(OP["stream"], rid, body, 0), fd)
        except BaseException:
            self._pending.pop(rid, None)
            raise
        return await self._finish(rid, fut, OP["stream"], dec_play_reply)

    async def next_event(self, timeout=None):
        """The next event, or None after timeout seconds or when the daemon went away."""
        try:
            return await asyncio.wait_for(self._events.get(), timeout)
        except asyncio.TimeoutError:
            return None

    async def close(self):
        self._reader.cancel()
        self._w.close()
        try:
            await self._w.wait_closed()
        except (ConnectionError, asyncio.CancelledError):
            pass
