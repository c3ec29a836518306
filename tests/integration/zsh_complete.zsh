# zsh_complete.zsh - completes one command line with zsh's real completion
# system, the way a user at a terminal would, for test_completion_zsh.
#
#     zsh -f zsh_complete.zsh COMPDIR BINDIR 'heliodctl pl'
#
# Starts an interactive `zsh -f` in a pseudo-terminal (zsh/zpty), puts COMPDIR
# first in fpath and BINDIR (the built heliodctl) first in PATH, runs
# compinit, types the line and one TAB, then a key bound to a widget that
# writes the edit buffer to a file. zle handles keys in order, so the buffer
# is read after the completion has finished. A wrapper round compadd records
# every word the completion offered that matches what was typed (compadd -O),
# so an ambiguous completion (a listing) can be checked as well.
#
# Prints:
#     buffer: <the line after TAB>
#     source: <the file _heliodctl was loaded from>
#     elapsed: <seconds from TAB to the buffer being written>
#     match: <word>          (one per offered word, in the order offered)
# Exits 0; 77 when zsh/zpty is missing; 1 when the shell did not answer
# within 10 s (its terminal output goes to stderr). Writes only under a
# private temporary HOME (no .zcompdump: compinit -D), removed on exit.

emulate -L zsh
zmodload zsh/zpty 2>/dev/null || exit 77
zmodload zsh/datetime || exit 77
(( $# == 3 )) || { print -u2 "usage: zsh -f zsh_complete.zsh COMPDIR BINDIR LINE"; exit 2 }
compdir=$1 bindir=$2 line=$3
tmp=$(mktemp -d) || exit 1
trap 'zpty -d c 2>/dev/null; rm -rf -- $tmp' EXIT

# Everything the shell has written so far (for wait_for and a failure report).
screen=
drain() {
    local chunk
    while zpty -rt c chunk 2>/dev/null; do screen+=$chunk; done
}

# Reads what the shell wrote until $1 appears (or 10 s pass); 0 if it did.
wait_for() {
    local end=$(( EPOCHREALTIME + 10 ))
    while (( EPOCHREALTIME < end )); do
        drain
        [[ $screen == *$1* ]] && return 0
        sleep 0.02
    done
    return 1
}

fail() {
    print -u2 -r -- "zsh_complete: $1; the terminal showed:"
    print -u2 -r -- "$screen"
    exit 1
}

zpty c "HOME=${(q)tmp} ZDOTDIR=${(q)tmp} TERM=dumb PATH=${(q)bindir}:\$PATH zsh -f -i" ||
    fail "cannot start zsh in a pty"
zpty -w c "stty rows 50 cols 200; PS1='%% '; LISTMAX=100000"
zpty -w c "fpath=(${(q)compdir} \$fpath); autoload -U compinit; compinit -u -D"
# the recorder: calls that only ask (-O, -A, -D) pass through untouched
zpty -w c "compadd() {
    if [[ \${@[1,(i)(-|--)]} == *-(O|A|D)\\ * ]]; then builtin compadd \"\$@\"; return; fi
    local -a m; builtin compadd -O m \"\$@\"
    (( \$#m )) && print -rl -- \$m >> ${(q)tmp}/matches
    builtin compadd \"\$@\"
}"
zpty -w c "dump() {
    print -r -- \"\$BUFFER\" > ${(q)tmp}/buffer.part
    print -r -- \"\${functions_source[_heliodctl]}\" >> ${(q)tmp}/buffer.part
    mv ${(q)tmp}/buffer.part ${(q)tmp}/buffer
}; zle -N dump; bindkey '^B' dump"
# the marker is split on the typed line so only its output matches
zpty -w c "print SET''UP-DONE"
wait_for SETUP-DONE || fail "no prompt after compinit"

t0=$EPOCHREALTIME
zpty -n -w c "$line"$'\t\C-b'
end=$(( EPOCHREALTIME + 10 ))
while [[ ! -e $tmp/buffer ]] && (( EPOCHREALTIME < end )); do sleep 0.02; done
t1=$EPOCHREALTIME
[[ -e $tmp/buffer ]] || { drain; fail "no buffer after TAB" }

out=("${(@f)$(<$tmp/buffer)}")
print -r -- "buffer: $out[1]"
print -r -- "source: $out[2]"
printf 'elapsed: %.3f\n' $(( t1 - t0 ))
[[ -e $tmp/matches ]] && print -rl -- ${${(@f)"$(<$tmp/matches)"}/#/match: }
exit 0
