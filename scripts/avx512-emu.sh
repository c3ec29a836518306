#!/usr/bin/env bash
# avx512-emu.sh - run an x86-64 Linux test binary on an emulated AVX-512 CPU.
#
# Usage: scripts/avx512-emu.sh BINARY [ARGS...]
#
# Our build machines have no AVX-512, so the AVX-512 mixer kernels never run in
# the normal test suite. This boots a Debian kernel in Bochs (a CPU emulator
# whose Debian build implements AVX-512/EVEX; QEMU's TCG does not) with a
# throw-away initramfs holding a tiny /init, BINARY and the shared libraries it
# needs, runs BINARY ARGS there, and hands back its output and exit status.
# Slow (Bochs interprets every instruction; see docs/AVX512-EMULATION.md), so
# it is a tool for developers, not part of CI or `meson test`.
#
# Output: the binary's stdout and stderr (merged: both go to the guest's serial
# console) on our stdout; a one-line timing summary on stderr.
# Exit status: the binary's own (128+N if it died of signal N), or 125 with a
# message on stderr if the emulator, the boot or the set-up failed or timed out.
#
# Knobs (environment):
#   HELIOD_EMU_CPU      Bochs cpu model (default corei7_skylake_x; tigerlake
#                       has AVX-512 too but hangs the kernel early in boot)
#   HELIOD_EMU_TIMEOUT  seconds of wall time before giving up (default 1200)
#   HELIOD_EMU_KERNEL   Debian kernel flavour (default cloud-amd64; or amd64)
#   HELIOD_EMU_MEGS     guest memory in MiB (default 512)
#   HELIOD_EMU_IPS      Bochs instructions per emulated second (default 4000000)
#   HELIOD_EMU_APPEND   extra kernel command line arguments
#   HELIOD_EMU_FILES    extra files or directories to copy into the guest at
#                       the same absolute paths (space-separated); ELF files
#                       among them get their shared libraries too
#   HELIOD_EMU_VERBOSE  1: boot without `quiet` and print the whole serial log
#   HELIOD_EMU_KEEP     1: keep the work directory (ISO, bochsrc, logs)
#   HELIOD_EMU_CACHE    where the kernel is cached
#                       (default ${XDG_CACHE_HOME:-$HOME/.cache}/heliod-emu)
set -euo pipefail

EMU_FAIL=125
die() {
    echo "avx512-emu: $*" >&2
    exit "$EMU_FAIL"
}

if [ $# -lt 1 ] || [ "$1" = "-h" ] || [ "$1" = "--help" ]; then
    sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}" >&2
    exit "$EMU_FAIL"
fi

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
CPU="${HELIOD_EMU_CPU:-corei7_skylake_x}"
TIMEOUT="${HELIOD_EMU_TIMEOUT:-1200}"
FLAVOUR="${HELIOD_EMU_KERNEL:-cloud-amd64}"
MEGS="${HELIOD_EMU_MEGS:-512}"
IPS="${HELIOD_EMU_IPS:-4000000}"
VERBOSE="${HELIOD_EMU_VERBOSE:-0}"
CACHE="${HELIOD_EMU_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/heliod-emu}"

binary="$(realpath -e "$1" 2>/dev/null)" || die "no such file: $1"
shift
[ -f "$binary" ] && [ -x "$binary" ] || die "not an executable file: $binary"

t_start=$(date +%s.%N)

# --- tools -------------------------------------------------------------------
# Each file below comes from the Debian package after it; install what is
# missing (as root, or through sudo) so a fresh machine needs no set-up step.
need=()
for pair in /usr/bin/bochs-bin:bochs /usr/share/bochs/BIOS-bochs-latest:bochsbios \
    /usr/share/vgabios/vgabios.bin:vgabios /usr/lib/ISOLINUX/isolinux.bin:isolinux \
    /usr/lib/syslinux/modules/bios/ldlinux.c32:syslinux-common /usr/bin/xorriso:xorriso \
    /usr/bin/cpio:cpio /usr/bin/gzip:gzip /usr/bin/gcc:gcc /usr/lib/x86_64-linux-gnu/libc.a:libc6-dev; do
    [ -e "${pair%%:*}" ] || need+=("${pair#*:}")
done
if [ ${#need[@]} -gt 0 ]; then
    echo "avx512-emu: installing ${need[*]}" >&2
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    export DEBIAN_FRONTEND=noninteractive
    { $SUDO apt-get update -qq && $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}"; } \
        >&2 || die "could not install ${need[*]}"
fi

# --- kernel --------------------------------------------------------------------
# Debian's kernel image, downloaded (not installed) once and kept in $CACHE.
# The meta package linux-image-$FLAVOUR names the current versioned package.
mkdir -p "$CACHE"
# find_kernel: the newest cached vmlinuz-VERSION-ABI-$FLAVOUR (exactly that
# flavour: a plain glob for "amd64" would match "cloud-amd64" as well).
find_kernel() {
    ls "$CACHE" 2>/dev/null | grep -E "^vmlinuz-[0-9.]+-[0-9]+-${FLAVOUR}\$" | sort -V | tail -n 1 |
        sed "s|^|$CACHE/|" || true
}
kernel="$(find_kernel)"
if [ -z "$kernel" ]; then
    pkg="$(apt-cache depends "linux-image-$FLAVOUR" 2>/dev/null |
        sed -n 's/^ *Depends: \(linux-image-[0-9].*\)$/\1/p' | head -n 1)"
    if [ -z "$pkg" ]; then
        { apt-get update -qq || sudo apt-get update -qq; } >&2 2>/dev/null || true
        pkg="$(apt-cache depends "linux-image-$FLAVOUR" 2>/dev/null |
            sed -n 's/^ *Depends: \(linux-image-[0-9].*\)$/\1/p' | head -n 1)"
    fi
    [ -n "$pkg" ] || die "cannot resolve the Debian package linux-image-$FLAVOUR"
    echo "avx512-emu: downloading $pkg" >&2
    (cd "$CACHE" && apt-get download -q "$pkg" >&2 2>/dev/null) || die "apt-get download $pkg failed"
    deb="$(ls "$CACHE/${pkg}"_*.deb | head -n 1)"
    dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$CACHE" --wildcards --strip-components=2 './boot/vmlinuz-*' ||
        die "no vmlinuz in $deb"
    rm -f "$deb"
    kernel="$(find_kernel)"
    [ -n "$kernel" ] || die "no vmlinuz for flavour $FLAVOUR in $deb"
fi

# --- work directory ------------------------------------------------------------
work="$(mktemp -d "${TMPDIR:-/tmp}/heliod-emu.XXXXXX")"
script_pid=""
# stop_bochs: ends Bochs and the script(1) around it. Bochs's term GUI catches
# SIGTERM without exiting, so SIGKILL follows when TERM has not worked.
stop_bochs() {
    [ -n "$script_pid" ] || return 0
    local pid
    pid="$(cat "$work/bochs.pid" 2>/dev/null || true)"
    if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
        kill -TERM "$pid" 2>/dev/null || true
        for _ in 1 2 3; do kill -0 "$pid" 2>/dev/null || break; sleep 1; done
        kill -KILL "$pid" 2>/dev/null || true
    fi
    wait "$script_pid" 2>/dev/null || true
    script_pid=""
}
cleanup() {
    stop_bochs
    if [ "${HELIOD_EMU_KEEP:-0}" = 1 ]; then
        echo "avx512-emu: kept $work" >&2
    else
        rm -rf "$work"
    fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- initramfs -------------------------------------------------------------------
# The guest's root filesystem: /init, the binary and its libraries at their host
# paths (so RUNPATHs and the ELF interpreter path resolve as on the host).
root="$work/root"
mkdir -p "$root/heliod-emu" "$root/tmp" "$root/proc" "$root/sys" "$root/dev"
gcc -std=gnu11 -static -O2 -o "$root/init" "$here/emu/init.c" || die "cannot build the guest /init"

# copy_in PATH: copies PATH (following symlinks) to the same path in the guest.
copy_in() {
    mkdir -p "$root$(dirname "$1")"
    cp -rL "$1" "$root$1"
}
# add_libs FILE: copies the shared libraries ldd lists for FILE, and the loader.
add_libs() {
    local out lib
    out="$(ldd "$1" 2>/dev/null)" || return 0 # static, or not an ELF file: nothing to add
    for lib in $(sed -n 's/.*=> \(\/[^ ]*\) (.*/\1/p; s/^[[:space:]]*\(\/[^ ]*\) (.*/\1/p' <<<"$out"); do
        [ -e "$root$lib" ] || copy_in "$lib"
    done
}
copy_in "$binary"
add_libs "$binary"
for f in ${HELIOD_EMU_FILES:-}; do
    f="$(realpath -e "$f" 2>/dev/null)" || die "HELIOD_EMU_FILES: no such file: $f"
    copy_in "$f"
    [ -d "$f" ] || add_libs "$f"
done
printf '%s\0' "$binary" "$@" >"$root/heliod-emu/argv"
mkdir -p "$root$PWD"
printf '%s' "$PWD" >"$root/heliod-emu/cwd"
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) >"$work/initrd.img"

# --- boot ISO ----------------------------------------------------------------------
# Bochs cannot load a Linux kernel itself; ISOLINUX on an El Torito CD does it.
iso="$work/iso"
mkdir -p "$iso/isolinux"
cp /usr/lib/ISOLINUX/isolinux.bin /usr/lib/syslinux/modules/bios/ldlinux.c32 "$iso/isolinux/"
cp "$kernel" "$iso/vmlinuz"
mv "$work/initrd.img" "$iso/initrd.img"
# Why these arguments: console on the serial port (the only output Bochs gives
# us); panic=-1 reboots at once on a panic instead of hanging until the timeout
# (the panic text is in the log); nokaslr and mitigations=off skip work that
# costs emulated time and buys nothing here; tsc=reliable skips the clocksource
# watchdog's slow cross-checks against an emulated HPET/PIT.
# clearcpuid=pku,xsaves,xsavec works around two bugs in Bochs 2.7's CPUID
# leaf 0xD: it lists PKRU in the supported XSAVE features but reports size 0
# for it, and its compacted-format size (leaf 0xD.1 EBX) is the standard-format
# one. Either makes Linux's XSAVE self-check fail, and the kernel then turns
# XSAVE off entirely, which takes AVX and AVX-512 away from user space. Without
# PKU, XSAVES and XSAVEC the kernel uses the standard XSAVE layout, which Bochs
# describes correctly. (This only changes what the kernel uses: user space
# still sees the emulated CPU's own CPUID.)
quiet="quiet"
[ "$VERBOSE" = 1 ] && quiet="ignore_loglevel"
append="console=ttyS0,115200 $quiet panic=-1 rdinit=/init nokaslr mitigations=off tsc=reliable"
append="$append clearcpuid=pku,xsaves,xsavec ${HELIOD_EMU_APPEND:-}"
cat >"$iso/isolinux/isolinux.cfg" <<EOF
DEFAULT linux
PROMPT 0
TIMEOUT 0
LABEL linux
  KERNEL /vmlinuz
  APPEND initrd=/initrd.img $append
EOF
xorriso -as mkisofs -quiet -R -J -o "$work/boot.iso" -b isolinux/isolinux.bin -c isolinux/boot.cat \
    -no-emul-boot -boot-load-size 4 -boot-info-table "$iso" 2>"$work/xorriso.log" ||
    die "xorriso failed: $(cat "$work/xorriso.log")"
rm -rf "$iso" "$root"

# --- Bochs -------------------------------------------------------------------------
# No debugger prompt: a panic ends Bochs (action=fatal) instead of asking on
# the terminal. Debian builds Bochs without the "nogui" display library, so we
# use the ncurses "term" one and give it a pseudo-terminal with script(1);
# what it draws (the VGA text screen: BIOS and ISOLINUX) goes to bochs.out.
# Debian's Bochs also has the internal debugger compiled in, which stops at
# the first instruction and waits for a command: debugger.rc tells it to
# continue, and to quit should it ever stop again. clock sync=none keeps
# the guest clock tied to instructions executed, so a run is deterministic and
# the guest's timers do not fire faster when emulation lags the wall clock.
serial="$work/serial.log"
cat >"$work/bochsrc" <<EOF
display_library: term
megs: $MEGS
cpu: model=$CPU, count=1, ips=$IPS, reset_on_triple_fault=0, ignore_bad_msrs=1
romimage: file=/usr/share/bochs/BIOS-bochs-latest
vgaromimage: file=/usr/share/vgabios/vgabios.bin
ata0-master: type=cdrom, path="$work/boot.iso", status=inserted
boot: cdrom
com1: enabled=1, mode=file, dev="$serial"
clock: sync=none, time0=local
log: $work/bochs.log
panic: action=fatal
error: action=report
info: action=report
debug: action=ignore
speaker: enabled=0
EOF
: >"$serial"
t_boot=$(date +%s.%N)
printf 'continue\nquit\n' >"$work/debugger.rc"
TERM=vt100 script -q -e -c "echo \$\$ >'$work/bochs.pid'; exec bochs-bin -q -f '$work/bochsrc' -rc '$work/debugger.rc'" \
    /dev/null </dev/null >"$work/bochs.out" 2>&1 &
script_pid=$!

# Poll the serial log rather than block on Bochs: the guest's power-off is not
# guaranteed to end Bochs, and we need the time init started and a timeout.
t_kernel="" t_init="" status="" failure=""
deadline=$(($(date +%s) + TIMEOUT))
while :; do
    # The first serial output is the kernel's, once it has decompressed itself
    # (the BIOS and ISOLINUX write to the screen only).
    if [ -z "$t_kernel" ] && [ -s "$serial" ]; then
        t_kernel=$(date +%s.%N)
    fi
    if [ -z "$t_init" ] && grep -q 'HELIOD-EMU-START' "$serial"; then
        t_init=$(date +%s.%N)
    fi
    line="$(grep -a -m 1 -o 'HELIOD-EMU-EXIT [0-9]*' "$serial" || true)"
    if [ -n "$line" ]; then
        status="${line#HELIOD-EMU-EXIT }"
        break
    fi
    if grep -a -q 'Kernel panic' "$serial"; then
        sleep 2 # let the rest of the panic message reach the log
        failure="the guest kernel panicked"
        break
    fi
    if ! kill -0 "$script_pid" 2>/dev/null; then
        failure="Bochs exited before the command finished"
        break
    fi
    if [ "$(date +%s)" -ge "$deadline" ]; then
        failure="timed out after ${TIMEOUT}s (HELIOD_EMU_TIMEOUT)"
        break
    fi
    sleep 1
done
t_end=$(date +%s.%N)

# Give the guest a moment to power off cleanly, then make sure Bochs is gone.
for _ in 1 2 3 4 5; do kill -0 "$script_pid" 2>/dev/null || break; sleep 1; done
stop_bochs

# The serial port adds \r to every \n; drop those.
tr -d '\r' <"$serial" >"$work/serial.txt"
if [ "$VERBOSE" = 1 ]; then
    echo "avx512-emu: ---- serial log ----" >&2
    cat "$work/serial.txt" >&2
    echo "avx512-emu: ---- end of serial log ----" >&2
fi
if [ -n "$failure" ]; then
    {
        echo "avx512-emu: $failure (cpu=$CPU, kernel=$(basename "$kernel"))"
        echo "avx512-emu: ---- last lines of the serial log ----"
        tail -n 40 "$work/serial.txt"
        echo "avx512-emu: ---- last lines of the Bochs log ----"
        # (without the unimplemented-MSR noise the kernel causes on every tick)
        grep -v 'MSR: Unknown register' "$work/bochs.log" 2>/dev/null | tail -n 20 || true
    } >&2
    exit "$EMU_FAIL"
fi

# The command's output is everything between the two marker lines.
start_line="$(grep -a -m 1 'HELIOD-EMU-START' "$work/serial.txt")"
sed -n '/HELIOD-EMU-START/,/HELIOD-EMU-EXIT/{/HELIOD-EMU-START/d;/HELIOD-EMU-EXIT/d;p}' "$work/serial.txt"
awk -v s="$t_start" -v b="$t_boot" -v k="${t_kernel:-$t_end}" -v i="${t_init:-$t_end}" -v e="$t_end" \
    -v cpu="$CPU" -v kern="$(basename "$kernel")" -v guest="${start_line#HELIOD-EMU-START }" -v st="$status" \
    'BEGIN { printf "avx512-emu: cpu=%s kernel=%s guest %s; set-up %.0fs, firmware+loader+decompression %.0fs, kernel-to-init %.0fs, command %.0fs, total %.0fs; exit %s\n",
             cpu, kern, guest, b - s, k - b, i - k, e - i, e - s, st }' >&2
exit "$status"
