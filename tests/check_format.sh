#!/usr/bin/env bash
# check_format.sh - fails when a C source or header does not follow .clang-format.
# Skipped (exit 77) where clang-format is not installed.
set -euo pipefail
top="$1"
command -v clang-format >/dev/null || { echo "clang-format not installed: skipped"; exit 77; }
cd "$top"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    mapfile -t files < <(git ls-files '*.c' '*.h')
else
    mapfile -t files < <(find daemon client proto tests bench -name '*.[ch]')
fi
clang-format --dry-run --Werror "${files[@]}"
echo "${#files[@]} files formatted as .clang-format says"
