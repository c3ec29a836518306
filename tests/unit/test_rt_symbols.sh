#!/bin/sh
# test_rt_symbols.sh - link-level backstop for the real-time rule: lists the
# undefined symbols of the mixer static library (nm -u) and fails on any that
# is not memcpy/memset/memmove, libm, the stack protector, the compiler's CPU
# detection or a sanitizer runtime. A malloc, free, pthread_mutex_lock,
# printf or write in daemon/mixer makes this test fail.
# It holds in every build flavour: with -D_FORTIFY_SOURCE the copies become
# __memcpy_chk & co. (a bounds check, then the same copy; only a corrupted
# call aborts), and under --coverage gcc's per-object constructor and
# destructor register the counters (__gcov_init, __gcov_exit) and name the
# function that merges them at exit (__gcov_merge_add): none runs on the
# audio path, whose counters are plain increments. Value profilers
# (__gcov_*_profiler, -fprofile-generate) run in the code and may allocate:
# still forbidden.
# Usage: test_rt_symbols.sh LIBHLMIX.a [NM]
set -eu
lib=${1:?usage: test_rt_symbols.sh libhlmix.a [nm]}
nm_prog=${2:-nm}
[ -f "$lib" ] || { echo "no such library: $lib" >&2; exit 2; }

allowed() {
    case "$1" in
    memcpy | memset | memmove) return 0 ;;
    __memcpy_chk | __memset_chk | __memmove_chk) return 0 ;; # -D_FORTIFY_SOURCE
    __gcov_init | __gcov_exit | __gcov_merge_add) return 0 ;; # --coverage, outside the code
    __stack_chk_fail | __stack_chk_guard) return 0 ;;
    __cpu_model | __cpu_indicator_init | __cpu_features2) return 0 ;; # __builtin_cpu_supports
    __asan_* | __ubsan_* | __tsan_* | __sanitizer_* | __lsan_*) return 0 ;;
    _GLOBAL_OFFSET_TABLE_) return 0 ;;
    # libm
    sinf | cosf | tanf | sqrtf | powf | expf | exp2f | logf | log2f | log10f | fabsf | floorf | \
        ceilf | roundf | lrintf | lroundf | fmaxf | fminf | fmodf | atan2f | sincosf | \
        sin | cos | sqrt | pow | exp | log | log10 | fabs | floor | ceil | fmax | fmin | fmod) \
        return 0 ;;
    esac
    return 1
}

# Undefined in some member and defined in none: what the library needs from outside.
undef=$("$nm_prog" -u "$lib" | awk 'NF >= 2 && $(NF-1) ~ /^[Uwv]$/ { print $NF }' | sed 's/@.*//' | sort -u)
defined=$("$nm_prog" --defined-only "$lib" | awk 'NF >= 3 { print $NF }' | sort -u)
syms=$(printf '%s\n' "$undef" | while read -r s; do
    [ -n "$s" ] || continue
    printf '%s\n' "$defined" | grep -qxF "$s" || printf '%s\n' "$s"
done)
bad=0
for s in $syms; do
    if ! allowed "$s"; then
        echo "forbidden symbol in RT library: $s" >&2
        bad=1
    fi
done
[ -n "$syms" ] || { echo "nm listed no undefined symbols: cannot check" >&2; exit 1; }
echo "undefined symbols:" $syms
exit $bad
