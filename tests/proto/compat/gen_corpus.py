#!/usr/bin/env python3
"""Generates tests/proto/compat/corpus_1.0.txt: frames encoded by the
protocol 1.0 clients (commit 4550bf8: libheliod, heliodctl and the Python
client) with the request each decodes to.

  tests/proto/compat/gen_corpus.py [--commit 4550bf8] [--out FILE]

It takes the 1.0 sources out of git (git archive), builds libheliod,
heliodctl and corpus_dump.c against them with cc, and runs
drive_libheliod.c, a list of heliodctl commands and py_client_driver.py
against a recording server that answers HELLO (1.0 layout) and refuses
every other request; every frame a client sends is kept. Each frame is then
decoded by the 1.0 codec (corpus_dump.c built against it): that text is the
manifest the corpus test compares today's decoder with. Needs git and cc;
the test that reads the corpus needs neither.

Re-running it must reproduce the checked-in file byte for byte (the 1.0
sources do not change); the corpus is protocol 1.0's and is never edited
by hand.
"""
import argparse
import os
import re
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
OP_HELLO, OP_LOAD_FD, OP_REPLY = 1, 35, 128
FLAG_NOREPLY = 0x1
ERR = {}  # heliod_errors.h of the 1.0 sources: name -> code


def sh(cmd, **kw):
    subprocess.run(cmd, check=True, **kw)


def build(commit, tmp):
    src = os.path.join(tmp, "src")
    os.makedirs(src)
    tar = subprocess.run(["git", "-C", REPO, "archive", commit, "proto", "client", "meson.build"],
                         check=True, capture_output=True).stdout
    sh(["tar", "-x", "-C", src], input=tar)
    ver = "0.0.0"
    for line in open(os.path.join(src, "meson.build")):
        if line.strip().startswith("version"):
            ver = line.split("'")[1]
            break
    with open(os.path.join(src, "hl_config.h"), "w") as f:
        f.write('#define HELIOD_VERSION "%s"\n#define HAVE_LIBSYSTEMD 0\n' % ver)
    errs = open(os.path.join(src, "proto", "heliod_errors.h")).read()
    for name, code in re.findall(r"X\((E[A-Z]+),\s*(-\d+)", errs):
        ERR[name] = int(code)
    cc = [os.environ.get("CC", "cc"), "-std=c11", "-O1", "-D_GNU_SOURCE", "-fno-math-errno",
          "-w", "-I" + os.path.join(src, "proto"), "-I" + os.path.join(src, "client"), "-I" + src]
    proto = [os.path.join(src, "proto", "proto.c")]
    lib = [os.path.join(src, "client", f) for f in
           ("heliod.c", "heliod_vm.c", "heliod_graph.c", "heliod_assets.c")]
    ctl = [os.path.join(src, "client", f) for f in
           ("ctl_args.c", "ctl_args_vm.c", "ctl_args_graph.c", "ctl_args_assets.c", "heliodctl.c",
            "ctl_top.c", "ctl_profile.c", "ctl_wait.c", "ctl_ui.c")]
    out = {k: os.path.join(tmp, k) for k in ("drive", "heliodctl", "dump")}
    sh(cc + ["-o", out["drive"], os.path.join(HERE, "drive_libheliod.c")] + lib + proto + ["-lm"])
    sh(cc + ["-o", out["heliodctl"]] + ctl + lib + proto + ["-lm"])
    sh(cc + ["-o", out["dump"], os.path.join(HERE, "corpus_dump.c"),
             os.path.join(HERE, "corpus_dump_main.c")] + proto + ["-lm"])
    out["python"] = os.path.join(src, "client", "python")
    return out


class Recorder:
    """A Unix socket that answers like a daemon that refuses everything."""

    def __init__(self, path):
        self.path = path
        self.frames = []  # (source, bytes)
        self.source = None
        self.lock = threading.Lock()
        self.s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.s.bind(path)
        self.s.listen(8)
        threading.Thread(target=self.accept, daemon=True).start()

    def accept(self):
        while True:
            try:
                c, _ = self.s.accept()
            except OSError:
                return
            threading.Thread(target=self.serve, args=(c,), daemon=True).start()

    def serve(self, c):
        buf = b""
        while True:
            try:
                data, anc, _, _ = c.recvmsg(65536, socket.CMSG_SPACE(16 * 4))
            except OSError:
                break
            for level, kind, fds in anc:
                if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                    for i in range(0, len(fds) - len(fds) % 4, 4):
                        os.close(struct.unpack_from("i", fds, i)[0])
            if not data:
                break
            buf += data
            while len(buf) >= 12:
                size, op, flags, rid = struct.unpack_from("<IHHI", buf)
                if len(buf) < size:
                    break
                frame, buf = buf[:size], buf[size:]
                with self.lock:
                    self.frames.append((self.source, frame))
                if flags & FLAG_NOREPLY:
                    continue
                c.sendall(self.reply(op, flags, rid, frame))
        c.close()

    @staticmethod
    def reply(op, flags, rid, frame):
        if op == OP_HELLO:  # the 1.0 HELLO reply, granting the flags asked for
            version = struct.unpack_from("<H", frame, 12)[0]
            want = struct.unpack_from("<I", frame, len(frame) - 4)[0]
            sv = b"corpus"
            body = struct.pack("<HiHIIIIH", OP_HELLO, 0, version, 48000, 256, 64, 1, len(sv))
            body += sv + struct.pack("<I", want)
        else:
            msg = b"refused by the corpus recorder"
            status = ERR["EBADOP"] if op == OP_LOAD_FD else ERR["EINVAL"]  # LOAD_FD: makes libheliod send chunks
            body = struct.pack("<HiH", op, status, len(msg)) + msg
        return struct.pack("<IHHI", 12 + len(body), OP_REPLY, 0, rid) + body


CTL = [
    ["ping"], ["status"], ["sounds"], ["voices"], ["devices"], ["buses"], ["ducks"],
    ["reverb-zones"], ["banks"], ["zones"], ["cues"], ["clock"], ["stats", "--reset"],
    ["load", "ctl_boom", "/srv/sfx/boom.wav", "--stream", "--shared"],
    ["unload", "ctl_boom"],
    ["play", "ctl_boom"],
    ["play", "ctl_boom", "--gain", "-6", "--pan", "0.25", "--pitch", "2", "--loop",
     "--loop-start", "100", "--loop-end", "48000", "--xfade", "10", "--interp", "sinc"],
    ["play", "ctl_boom", "--pos", "1,2,3", "--bus", "music", "--priority", "-1000"],
    ["play", "ctl_boom", "--wait"],
    ["stop", "42", "--fade", "250"], ["stop", "--all"],
    ["set", "42", "--gain", "-3", "--pan", "-1", "--pos", "0,0,-2", "--vel", "1,0,0",
     "--pitch", "0.5", "--ramp", "20", "--lp", "4000", "--hp", "80", "--occlusion", "0.3",
     "--obstruction", "0.7", "--send", "reverb_zones:-12"],
    ["set", "42", "--seek", "3.5"], ["set", "42", "--pause"],
    ["pause", "42"], ["resume", "--all"],
    ["listener", "--pos", "1,2,3", "--forward", "0,0,-1", "--up", "0,1,0", "--vel", "0,0,1"],
    ["bus", "music", "--gain", "-6", "--ramp", "100"], ["bus", "music", "--mute"],
    ["bus", "create", "ctl_bus", "--parent", "sfx"],
    ["bus", "ctl_bus", "--send", "hall:-9"], ["bus", "remove", "ctl_bus"],
    ["fx", "add", "music", "eq", "--type", "highshelf", "--freq", "8000", "--gain", "-4"],
    ["fx", "add", "master", "comp", "--threshold", "-12", "--ratio", "8", "--at", "0"],
    ["fx", "set", "music", "0", "reverb", "--preset", "room", "--wet", "0.5"],
    ["fx", "remove", "music", "0"], ["fx", "list", "music"],
    ["duck", "music", "--by", "dialog", "--depth", "12"],
    ["reverb-zone", "set", "ctl_rz", "--pos", "0,0,0", "--radius", "10"],
    ["reverb-zone", "remove", "ctl_rz"],
    ["bank", "load", "/srv/game/forest.bank"], ["bank", "unload", "forest"],
    ["zone", "add", "ctl_zone", "--bank", "/srv/game/forest.bank", "--pos", "5,0,5",
     "--radius", "30"],
    ["zone", "remove", "ctl_zone"],
    ["cue", "ctl_cue", "--sound", "a", "--sound", "b", "--pick", "shuffle", "--gain", "-2",
     "--3d", "--category", "footsteps"],
    ["category", "footsteps", "--max", "4"],
    ["cues", "load", "/srv/game/cues.txt"],
    ["emitter", "create", "ctl_em", "--pos", "1,1,1", "--vel", "0,0,1"],
    ["emitter", "set", "ctl_em", "--pos", "2,2,2", "--ramp", "50"],
    ["emitter", "destroy", "ctl_em", "--fade", "100"],
    ["device", "null"],
]


def record(tools, tmp):
    sock = os.path.join(tmp, "rec.sock")
    rec = Recorder(sock)
    env = dict(os.environ, HELIOD_UPLOAD="")
    env.pop("HELIOD_UPLOAD")
    rec.source = "libheliod"
    sh([tools["drive"], sock], env=env, stdout=subprocess.DEVNULL)
    for args in CTL:
        rec.source = "heliodctl " + " ".join(args)
        subprocess.run([tools["heliodctl"], "--socket", sock, "--timeout", "2000"] + args,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env,
                       stdin=subprocess.DEVNULL, timeout=30)
    rec.source = "python"
    penv = dict(env, PYTHONPATH=tools["python"])
    sh([sys.executable, os.path.join(HERE, "py_client_driver.py"), sock], env=penv)
    rec.s.close()
    return rec.frames


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--commit", default="4550bf8")
    ap.add_argument("--out", default=os.path.join(HERE, "corpus_1.0.txt"))
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="heliod-corpus-")
    try:
        tools = build(a.commit, tmp)
        frames = record(tools, tmp)
        # the 1.0 decoder's reading of every frame
        inp = "".join(f.hex() + "\n" for _, f in frames)
        dump = subprocess.run([tools["dump"]], input=inp, capture_output=True, text=True,
                              check=True).stdout.split("\n.\n")
        out = ["# Protocol 1.0 corpus: frames sent by the clients of commit %s (libheliod,"
               % a.commit,
               "# heliodctl, the Python client), each with the request the 1.0 decoder reads.",
               "# Generated by tests/proto/compat/gen_corpus.py; never edit by hand.",
               "# Read by test_corpus (every frame decodes to the same request today) and",
               "# test_compat (every frame is answered by today's daemon, never EPROTO).", ""]
        seen = set()
        n = 0
        for (src, f), d in zip(frames, dump):
            key = f[4:6] + f[6:8] + f[12:]  # the same bytes but the id: once is enough
            if key in seen:
                continue
            seen.add(key)
            n += 1
            out.append("frame %d %s" % (n, src))
            out.append("hex " + f.hex())
            out.extend(d.strip("\n").split("\n"))
            out.append("end")
            out.append("")
        with open(a.out, "w") as fo:
            fo.write("\n".join(out))
        kinds = sorted({l.split("=", 1)[1] for l in out if l.startswith("op=")})
        print("%d frames, %d kinds: %s" % (n, len(kinds), " ".join(kinds)))
    finally:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
