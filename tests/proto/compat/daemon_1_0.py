"""A stand-in for heliod of protocol 1.0 (commit 4550bf8) at the handshake,
for the clients' fallback to a 1.0 HELLO (test_old_daemon.py).

It answers as 4550bf8's daemon/dispatch.c does: op_hello decodes HELLO with
the 1.0 hl_get_hello (u16 version, string client_name, u32 flags with only
HL_HELLO_CONTROL allowed) and hld_body_ok then wants the body consumed
exactly, so a longer body (a 1.1 client's trailing minor) is answered with an
error reply (the request's op, flags and id; status EPROTO; "malformed
request body") and the connection is closed; another version is answered
EVERSION and closed; a 1.0 HELLO gets the 1.0 HELLO_REPLY (no minor). Any
other request before HELLO is refused EHANDSHAKE. After HELLO it serves
PING (u64 time) and refuses everything else EBADOP (4550bf8 served them:
the clients under test send nothing else).

REAL_1_0 holds what the real 4550bf8 daemon (built from `git archive
4550bf8`, `--driver null`) sent on two fresh connections, as its first and
second client, to the HELLOs in it: the test checks that this stand-in
sends the same bytes.
"""
import os
import socket
import struct
import threading
import time

OP_HELLO, OP_PING, OP_REPLY = 1, 2, 128
FLAG_NOREPLY = 0x1
EPROTO, EVERSION, EBADOP, EINVAL, EHANDSHAKE = -1, -2, -3, -4, -20
HELLO_CONTROL = 0x1
MAX_NAME = 63

# (HELLO body sent with request id 1, the daemon's whole answer, closed after it)
REAL_1_0 = [
    # 1.1 HELLO (version 1, "game", flags 0, minor 1): refused, closed
    ("0100040067616d65000000000100",
     "2a00000080000000010000000100ffffffff16006d616c666f726d6564207265717565737420626f6479",
     True),
    # 1.0 HELLO: the 1.0 reply (rate 48000, period 256, voices 64, client 2, "0.1.0")
    ("0100040067616d6500000000",
     "2f0000008000000001000000010000000000010080bb00000001000040000000020000000500302e312e3000000000",
     False),
]


def s16(s):
    b = s.encode()
    return struct.pack("<H", len(b)) + b


def frame(op, flags, rid, body):
    return struct.pack("<IHHI", 12 + len(body), op, flags, rid) + body


def reply_error(op, flags, rid, status, msg):
    return frame(OP_REPLY, flags & ~FLAG_NOREPLY, rid, struct.pack("<Hi", op, status) + s16(msg))


def decode_hello_1_0(body):
    """(version, name, flags), or None where 4550bf8 answered EPROTO."""
    if len(body) < 2 + 2:
        return None
    version, n = struct.unpack_from("<HH", body)
    off = 4
    if n > MAX_NAME or len(body) < off + n + 4:
        return None
    name = body[off:off + n].decode("utf-8", "replace")
    off += n
    flags, = struct.unpack_from("<I", body, off)
    off += 4
    if flags & ~HELLO_CONTROL or off != len(body):  # hld_body_ok: consumed exactly
        return None
    return version, name, flags


class Daemon10:
    def __init__(self, path):
        self.path = path
        self.hellos = []  # (client id, HELLO body, "refused EPROTO" / "1.0 reply" / ...)
        self._next_id = 0
        self._lock = threading.Lock()
        self._srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._srv.bind(path)
        self._srv.listen(16)
        self._stop = False
        self._t = threading.Thread(target=self._accept, daemon=True)
        self._t.start()

    def close(self):
        self._stop = True
        try:
            socket.socket(socket.AF_UNIX, socket.SOCK_STREAM).connect(self.path)
        except OSError:
            pass
        self._t.join(5)
        self._srv.close()
        os.unlink(self.path)

    def _accept(self):
        while True:
            c, _ = self._srv.accept()
            if self._stop:
                c.close()
                return
            with self._lock:
                self._next_id += 1
                cid = self._next_id
            threading.Thread(target=self._serve, args=(c, cid), daemon=True).start()

    def _log(self, cid, body, what):
        with self._lock:
            self.hellos.append((cid, body, what))

    def _serve(self, c, cid):
        c.settimeout(10)
        buf, hello = b"", False
        try:
            while True:
                while len(buf) >= 12 and len(buf) >= struct.unpack_from("<I", buf)[0]:
                    size, op, flags, rid = struct.unpack_from("<IHHI", buf)
                    body, buf = buf[12:size], buf[size:]
                    if op == OP_HELLO:
                        if hello:
                            c.sendall(reply_error(op, flags, rid, EINVAL, "handshake already done"))
                            continue
                        m = decode_hello_1_0(body)
                        if m is None:
                            self._log(cid, body, "refused EPROTO")
                            c.sendall(reply_error(op, flags, rid, EPROTO, "malformed request body"))
                            return
                        if m[0] != 1:
                            self._log(cid, body, "refused EVERSION")
                            c.sendall(reply_error(op, flags, rid, EVERSION,
                                                  "protocol version %u is not supported "
                                                  "(server speaks 1)" % m[0]))
                            return
                        hello = True
                        self._log(cid, body, "1.0 reply")
                        ctl = m[2] & HELLO_CONTROL
                        c.sendall(frame(OP_REPLY, 0, rid, struct.pack("<HiHIIII", op, 0, 1, 48000, 256, 64, cid)
                                        + s16("0.1.0") + struct.pack("<I", ctl)))
                    elif not hello:
                        c.sendall(reply_error(op, flags, rid, EHANDSHAKE,
                                              "handshake required before any other request"))
                    elif op == OP_PING and not body:
                        if not flags & FLAG_NOREPLY:
                            c.sendall(frame(OP_REPLY, 0, rid, struct.pack("<HiQ", op, 0,
                                                                          time.monotonic_ns())))
                    else:
                        c.sendall(reply_error(op, flags, rid, EBADOP, "unknown opcode"))
                data = c.recv(65536)
                if not data:
                    return
                buf += data
        except OSError:
            return
        finally:
            c.close()


def answer(path, hello_body, until_closed):
    """A fresh connection: HELLO hello_body with id 1; returns what the daemon
    sent: its first frame, and with until_closed everything up to its close
    (None if it did not close within 10 s)."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    s.sendall(frame(OP_HELLO, 0, 1, hello_body))
    s.settimeout(10)
    data = b""
    try:
        while True:
            if not until_closed and len(data) >= 4 and len(data) >= struct.unpack_from("<I", data)[0]:
                return data
            d = s.recv(65536)
            if not d:
                return data
            data += d
    except socket.timeout:
        return None
    finally:
        s.close()
