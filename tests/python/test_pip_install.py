#!/usr/bin/env python3
"""test_pip_install.py - `pip install client/python` works in a fresh
virtual environment, offline: a copy of client/python (so nothing is
written into the source tree) is installed with pip --no-index
--no-build-isolation into a new venv that sees the system's setuptools
and wheel (Debian: python3-venv, python3-setuptools, python3-wheel; see
scripts/deps.sh), and the installed package is imported from the venv, not
from the source tree. Exit 77 (skipped) only when no Python here can make a
venv with pip.

usage: test_pip_install.py CLIENT_PYTHON_DIR
"""
import os
import shutil
import subprocess
import sys
import tempfile


def can_venv(py):
    """py can make a venv with pip and build a setuptools package offline."""
    try:
        r = subprocess.run([py, "-c", "import venv, ensurepip, setuptools, wheel"],
                           capture_output=True, timeout=60)
    except OSError:
        return False
    return r.returncode == 0


def main():
    src = os.path.abspath(sys.argv[1])
    # Debian's interpreter first: python3-venv/setuptools/wheel are its packages
    pys = [p for p in ("/usr/bin/python3", sys.executable) if p and os.path.exists(p)]
    py = next((p for p in pys if can_venv(p)), None)
    if py is None:
        print("skip: no python3 here has venv, ensurepip, setuptools and wheel")
        return 77
    leftovers = ("build", "heliod.egg-info")
    before = {d for d in leftovers if os.path.exists(os.path.join(src, d))}
    with tempfile.TemporaryDirectory(prefix="heliod-pip-") as tmp:
        pkg = os.path.join(tmp, "src")
        shutil.copytree(src, pkg, ignore=shutil.ignore_patterns(
            "build", "*.egg-info", "__pycache__"))
        venv = os.path.join(tmp, "venv")
        subprocess.run([py, "-m", "venv", "--system-site-packages", venv], check=True)
        vpy = os.path.join(venv, "bin", "python")
        r = subprocess.run([vpy, "-m", "pip", "install", "--no-index", "--no-build-isolation",
                            "--disable-pip-version-check", pkg], capture_output=True, text=True)
        if r.returncode != 0:
            print(r.stdout, r.stderr)
            print("FAIL: pip install of client/python")
            return 1
        check = (
            "import os, sys, heliod, heliod._bodies, heliod.events\n"
            "f = os.path.realpath(heliod.__file__)\n"
            "assert f.startswith(os.path.realpath(sys.prefix)), f\n"
            "assert heliod.PROTO_VERSION == 1 and heliod.Client and heliod.AsyncClient\n"
            "import importlib.metadata as md\n"
            "assert md.version('heliod') == '0.1.0', md.version('heliod')\n"
            "print('installed', f)\n")
        r = subprocess.run([vpy, "-c", check], cwd=tmp, capture_output=True, text=True)
        print(r.stdout, r.stderr)
        if r.returncode != 0:
            print("FAIL: the installed package does not import from the venv")
            return 1
        if {d for d in leftovers if os.path.exists(os.path.join(src, d))} != before:
            print("FAIL: the install wrote into the source tree")
            return 1
    print("ok: pip install client/python in a fresh venv")
    return 0


if __name__ == "__main__":
    sys.exit(main())
