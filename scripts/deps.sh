#!/usr/bin/env bash
# deps.sh - install the Debian packages heliod builds, tests and runs with.
# Idempotent: does nothing when everything is already there. Needs root (or sudo)
# only when something is missing.
set -euo pipefail

PKGS=(gcc libc6-dev pkg-config meson ninja-build
      portaudio19-dev libsndfile1-dev libuv1-dev libsoxr-dev libsystemd-dev libcmocka-dev
      libmysofa-dev libebur128-dev
      libopenal-dev libopenal1  # tests: OpenAL Soft renders the sound-cone oracle (loopback)
      jackd2 sox binutils python3
      python3-venv python3-setuptools python3-wheel python3-pip  # pip install client/python, offline
      tmux groff-base man-db zsh  # tests: heliodctl top in tmux, man pages, completions
      libopenal-dev libopenal1 openal-info libalut0 libalut-dev python3-pyglet  # client/openal and its tests
      gstreamer1.0-tools gstreamer1.0-plugins-bad gstreamer1.0-plugins-base)  # (OpenAL Soft is the reference)

missing=()
for p in "${PKGS[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "deps: installing ${missing[*]}" >&2
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
# jackd2 asks whether to enable real-time scheduling; answer no (tests run the dummy backend).
echo "jackd2 jackd/tweak_rt_limits boolean false" | $SUDO debconf-set-selections 2>/dev/null || true
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
