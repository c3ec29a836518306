#!/usr/bin/env python3
"""Today's clients against a daemon of protocol 1.0 (meson test
compat_old_daemon): libheliod (old_daemon_client.c), heliodctl (through
libheliod) and the Python client, blocking and asyncio.

A 1.0 daemon (commit 4550bf8) answers the 1.1 HELLO (its trailing minor)
with EPROTO and closes; each client must then dial again with a 1.0 HELLO
and work in 1.0 (minor 0). daemon_1_0.py stands in for that daemon; it is
first held to the bytes the real 4550bf8 daemon sent (REAL_1_0).

  test_old_daemon.py OLD_DAEMON_CLIENT HELIODCTL CLIENT_PYTHON_DIR
"""
import asyncio
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import daemon_1_0  # noqa: E402



def main():
    cexe, ctl, pydir = sys.argv[1:4]
    sys.path.insert(0, pydir)
    import heliod
    bad = 0

    def check(cond, what):
        nonlocal bad
        print("%s: %s" % ("ok" if cond else "FAIL", what))
        bad += 0 if cond else 1

    with tempfile.TemporaryDirectory() as tmp:
        # 1. the stand-in answers as the real 1.0 daemon did, byte for byte
        path = os.path.join(tmp, "d.sock")
        d = daemon_1_0.Daemon10(path)
        for body, want, closed in daemon_1_0.REAL_1_0:
            got = daemon_1_0.answer(path, bytes.fromhex(body), closed)
            check(got is not None and got.hex() == want,
                  "HELLO %s: %s (4550bf8: %s%s)" % (body, got.hex() if got else got, want,
                                                    ", closed" if closed else ""))
        d.close()

        # 2. each client: its HELLO with a minor (today's, 1.2: a 1.0 daemon refuses any
        # trailing minor alike) refused EPROTO, then a 1.0 HELLO served
        minor = heliod.PROTO_MINOR.to_bytes(2, "little")
        def run_client(name, fn):
            p = os.path.join(tmp, name + ".sock")
            dd = daemon_1_0.Daemon10(p)
            try:
                out = fn(p)
            except Exception as e:  # noqa: BLE001 - reported as the failure
                out = "raised %r" % e
            dd.close()
            h = dd.hellos
            print("%s: %s; HELLOs %s" % (name, out, [(b.hex(), w) for _, b, w in h]))
            check(len(h) == 2 and h[0][2] == "refused EPROTO" and h[1][2] == "1.0 reply"
                  and len(h[0][1]) == len(h[1][1]) + 2 and h[0][1][:len(h[1][1])] == h[1][1]
                  and h[0][1][-2:] == minor,
                  "%s: the 1.x HELLO (minor %d) refused, then the same HELLO in 1.0 served"
                  % (name, heliod.PROTO_MINOR))
            return out

        def c_client(p):
            r = subprocess.run([cexe, p], capture_output=True, text=True, timeout=20)
            check(r.returncode == 0, "libheliod: %s" % r.stdout.strip())
            return r.stdout.strip()

        def ctl_client(p):
            r = subprocess.run([ctl, "--socket", p, "ping"], capture_output=True, text=True,
                               timeout=20)
            check(r.returncode == 0, "heliodctl ping: exit %d %s" % (r.returncode,
                                                                     (r.stdout + r.stderr).strip()))
            return (r.stdout + r.stderr).strip()

        def py_client(p):
            c = heliod.Client(p, name="py", control=True)
            t = c.ping()
            c.close()
            check(c.info["minor"] == 0 and c.info["version"] == 1 and c.info["flags"] == 1
                  and t > 0, "python Client: %s" % c.info)
            return "minor %d" % c.info["minor"]

        def py_async(p):
            async def go():
                c = await heliod.AsyncClient.connect(p, name="pya")
                t = await c.ping()
                await c.close()
                return c.info, t
            info, t = asyncio.run(go())
            check(info["minor"] == 0 and info["version"] == 1 and t > 0,
                  "python AsyncClient: %s" % info)
            return "minor %d" % info["minor"]

        run_client("libheliod", c_client)
        run_client("heliodctl", ctl_client)
        run_client("python", py_client)
        run_client("python-async", py_async)

    print("FAIL" if bad else "ok")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
