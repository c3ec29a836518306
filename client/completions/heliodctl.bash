# bash completion for heliodctl (installed by meson into
# $datadir/bash-completion/completions/heliodctl).
#
# Commands and each command's options come from heliodctl itself
# (`heliodctl --help`, `heliodctl COMMAND --help`), so they never drift from
# the binary; sound and cue names come from the running daemon
# (`heliodctl sounds`, `heliodctl cues`), asked with the same --socket the
# line gives and a short timeout, so a daemon that is not there costs
# 300 ms at most and completes nothing. Needs nothing from the
# bash-completion package.

_heliodctl_words() {
    # $1: what to list; the rest: the global options already on the line
    local what=$1
    shift
    case $what in
    commands)
        heliodctl --help 2>/dev/null | awk '/^commands:/ {c = 1; next}
            c && /^  [a-z][a-z-]* / {print $1}'
        echo help
        ;;
    options)
        local cmd=$1
        shift
        heliodctl "$cmd" --help 2>/dev/null | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u
        ;;
    sounds)
        heliodctl "$@" --timeout 300 sounds 2>/dev/null | awk '{print $1}'
        ;;
    cues)
        heliodctl "$@" --timeout 300 cues 2>/dev/null | awk '$1 == "cue" {print $2}'
        ;;
    buses)
        heliodctl "$@" --timeout 300 buses 2>/dev/null | awk '{print $1}'
        ;;
    params)
        heliodctl "$@" --timeout 300 params 2>/dev/null | awk '$1 != "(none)" {print $1}'
        ;;
    snapshots)
        heliodctl "$@" --timeout 300 snapshots 2>/dev/null | awk '{print $1}'
        ;;
    esac
}

_heliodctl() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
    local i cmd="" global=()
    for ((i = 1; i < COMP_CWORD; i++)); do
        case ${COMP_WORDS[i]} in
        --socket | --timeout)
            global+=("${COMP_WORDS[i]}" "${COMP_WORDS[i+1]}")
            ((i++))
            ;;
        --json | --help | --version) ;;
        -*) ;;
        *)
            cmd=${COMP_WORDS[i]}
            break
            ;;
        esac
    done
    local IFS=$'\n'
    case $prev in
    --socket | --out | --config)
        COMPREPLY=($(compgen -f -- "$cur"))
        return
        ;;
    --bus | --parent | --by | --send)
        COMPREPLY=($(compgen -W "$(_heliodctl_words buses "${global[@]}")" -- "$cur"))
        return
        ;;
    --sound)
        COMPREPLY=($(compgen -W "$(_heliodctl_words sounds "${global[@]}")" -- "$cur"))
        return
        ;;
    --format)
        [[ $cmd == stream ]] && COMPREPLY=($(compgen -W $'f32\ns16\nu8' -- "$cur"))
        return
        ;;
    esac
    if [[ -z $cmd ]]; then
        if [[ $cur == -* ]]; then
            COMPREPLY=($(compgen -W $'--socket\n--json\n--timeout\n--help\n--version' -- "$cur"))
        else
            COMPREPLY=($(compgen -W "$(_heliodctl_words commands)" -- "$cur"))
        fi
        return
    fi
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$(_heliodctl_words options "$cmd")" -- "$cur"))
        return
    fi
    # the first word after the command
    local first=1
    for ((i = i + 1; i < COMP_CWORD; i++)); do
        [[ ${COMP_WORDS[i]} == -* ]] || first=0
    done
    case $cmd in
    play)
        ((first)) && COMPREPLY=($(compgen -W "$(_heliodctl_words cues "${global[@]}")
$(_heliodctl_words sounds "${global[@]}")" -- "$cur"))
        ;;
    unload)
        ((first)) && COMPREPLY=($(compgen -W "$(_heliodctl_words sounds "${global[@]}")" -- "$cur"))
        ;;
    load)
        ((first)) || COMPREPLY=($(compgen -f -- "$cur"))
        ;;
    batch | stream | replay)
        COMPREPLY=($(compgen -f -- "$cur"))
        ;;
    capture)
        if ((first)); then
            COMPREPLY=($(compgen -W "start stop show" -- "$cur"))
        else
            COMPREPLY=($(compgen -f -- "$cur"))
        fi
        ;;
    help)
        COMPREPLY=($(compgen -W "$(_heliodctl_words commands)" -- "$cur"))
        ;;
    param | param-def)
        ((first)) && COMPREPLY=($(compgen -W "$(_heliodctl_words params "${global[@]}")" -- "$cur"))
        ;;
    bind)
        # bind CUE PARAM PROPERTY ...
        local n=0
        for ((i = 1; i < COMP_CWORD; i++)); do [[ ${COMP_WORDS[i]} == bind ]] && n=$((COMP_CWORD - i)); done
        case $n in
        1) COMPREPLY=($(compgen -W "$(_heliodctl_words cues "${global[@]}")" -- "$cur")) ;;
        2) COMPREPLY=($(compgen -W "$(_heliodctl_words params "${global[@]}")" -- "$cur")) ;;
        3) COMPREPLY=($(compgen -W $'gain\npitch\nlp\nhp\nocclusion\nsend\nswitch\nblend' -- "$cur")) ;;
        esac
        ;;
    cue)
        # cue NAME (a new one) or cue show NAME (the daemon's cues)
        if ((first)); then
            COMPREPLY=($(compgen -W "show" -- "$cur"))
        elif [[ $prev == show ]]; then
            COMPREPLY=($(compgen -W "$(_heliodctl_words cues "${global[@]}")" -- "$cur"))
        fi
        ;;
    snapshot)
        # snapshot ACTION NAME: the actions, then the daemon's snapshots
        if ((first)); then
            COMPREPLY=($(compgen -W $'start\nstop\ndefine\nset\nremove\nshow' -- "$cur"))
        elif [[ $prev == start || $prev == stop || $prev == set || $prev == remove || $prev == show ]]; then
            COMPREPLY=($(compgen -W "$(_heliodctl_words snapshots "${global[@]}")" -- "$cur"))
        fi
        ;;
    bus | fx | duck)
        ((first)) && COMPREPLY=($(compgen -W "$(_heliodctl_words buses "${global[@]}")
master" -- "$cur"))
        ;;
    esac
}
complete -F _heliodctl heliodctl
