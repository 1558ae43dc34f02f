# bash completion for themis: commands, each command's options, the values of options that
# list them ("fifo | scf | all"), and file names. Options and values come from the program's
# option tables (`themis --complete-options CMD`, `--complete-values CMD OPT`), or, for a
# command without one, from `themis COMMAND --help`, so they follow the program; installed as
# share/bash-completion/completions/themis.

# The options of one --help text: the -x and --long forms at the start of its option lines.
_themis_options() {
    grep -E '^ +-' <<<"$1" | sed -nE 's/^ +(-[A-Za-z0-9])?(, )?(--[a-z0-9-]+)?.*/\1 \3/p'
}

_themis() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
    local bin=${COMP_WORDS[0]} cmd=run cmds help line rest meta words
    COMPREPLY=()
    # the commands: the first word of each line of the "commands:" block of --help
    cmds=$("$bin" --help 2>/dev/null | sed -n '/^commands:/,/^$/p' | awk 'NR > 1 && NF { printf "%s ", $1 }')
    [[ -n $cmds ]] || cmds="run train sweep merge import-astra summarize optimize plot calibrate"
    if ((COMP_CWORD == 1)) && [[ $cur != -* ]]; then
        COMPREPLY=($(compgen -W "$cmds help" -- "$cur"))
        return
    fi
    if ((COMP_CWORD > 1)) && [[ " $cmds help " == *" ${COMP_WORDS[1]} "* ]]; then
        cmd=${COMP_WORDS[1]}
    fi
    if [[ $cmd == help ]]; then
        ((COMP_CWORD == 2)) && COMPREPLY=($(compgen -W "$cmds" -- "$cur"))
        return
    fi
    if ((COMP_CWORD == 1)); then # bare options are `themis run`'s, plus --help and --version
        help=$("$bin" --help 2>/dev/null)$'\n'$("$bin" run --help 2>/dev/null)
    else
        help=$("$bin" "$cmd" --help 2>/dev/null)
    fi
    # the word before the cursor is an option that takes a value: its table says which
    if [[ $prev == -* ]] && words=$("$bin" --complete-values "$cmd" "$prev" 2>/dev/null); then
        if [[ $words == FILE ]]; then
            compopt -o filenames 2>/dev/null
            COMPREPLY=($(compgen -f -- "$cur"))
        elif [[ -n $words ]]; then
            COMPREPLY=($(compgen -W "$words" -- "$cur"))
        fi
        return
    fi
    # ... or, without a table, its --help (a capitalised metavariable)
    if [[ $prev == -* ]]; then
        line=$(grep -E -- "^ +(-[A-Za-z0-9], )?--[a-z0-9-]+ " <<<"$help" |
            grep -E -- "(^| )$prev(,| |$)" | head -n 1)
        rest=$(sed -E 's/^ +(-[A-Za-z0-9], )?--[a-z0-9-]+//' <<<"$line")
        meta=${rest# }
        meta=${meta%% *}
        if [[ -n $line && $rest == " "[A-Z]* && $meta =~ ^[A-Z][A-Z/_.]*$ ]]; then
            words=$(grep -oE '[a-z][a-z0-9_-]*( \| [a-z][a-z0-9_-]*)+' <<<"$rest" | head -n 1)
            if [[ -n $words ]]; then
                COMPREPLY=($(compgen -W "${words//|/}" -- "$cur"))
            elif [[ $meta == FILE || $meta == SPEC ]]; then
                compopt -o filenames 2>/dev/null
                COMPREPLY=($(compgen -f -- "$cur"))
            fi
            return
        fi
    fi
    if [[ $cur == -* ]]; then
        if ! words=$("$bin" --complete-options "$cmd" 2>/dev/null); then
            words=$(_themis_options "$help" | tr ' ' '\n')
        fi
        ((COMP_CWORD == 1)) && words+=$'\n--help\n--version'
        COMPREPLY=($(compgen -W "$(sort -u <<<"$words")" -- "$cur"))
        return
    fi
    compopt -o filenames 2>/dev/null # operands: workloads, specs, CSV and ASTRA-sim files
    COMPREPLY=($(compgen -f -- "$cur"))
}

complete -F _themis themis
