#!/bin/sh
# check_man.sh SRCDIR - renders every man page in docs/man with man -l (and
# groff -ww, every warning on) and fails on any warning or error, and checks
# that heliodctl(1) has a section for every command `heliodctl --help` lists.
# usage: check_man.sh SRCDIR HELIODCTL
set -eu
src=$1
ctl=$2
status=0
for page in "$src"/docs/man/*.[0-9]; do
    w=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings=w -E UTF-8 -l "$page" 2>&1 >/dev/null || echo "man failed")
    g=$(groff -man -Tutf8 -ww -z "$page" 2>&1 || echo "groff failed")
    if [ -n "$w$g" ]; then
        echo "$page:"
        echo "$w$g"
        status=1
    fi
    head -1 "$page" | grep -q "^\.TH " || { echo "$page: no .TH"; status=1; }
done
for cmd in $("$ctl" --help | awk '/^commands:/ {c = 1; next} c && /^  [a-z][a-z-]* / {print $1}'); do
    grep -q "^\.SS $cmd\$" "$src/docs/man/heliodctl.1" || {
        echo "heliodctl.1: no section for the command $cmd"
        status=1
    }
done
[ $status -eq 0 ] && echo "man pages: $(ls "$src"/docs/man/*.[0-9] | wc -l) render without warnings"
exit $status
