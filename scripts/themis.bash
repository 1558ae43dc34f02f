# bash completion for themis: commands, each command's options, the values of options that
# list them (fifo, scf, all), and file names. Everything comes from the program's option
# tables (`themis --complete-commands`, `--complete-options CMD`, `--complete-values CMD OPT`),
# so it follows the program; installed as share/bash-completion/completions/themis.

_themis() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
    local bin=${COMP_WORDS[0]} cmd=run cmds words
    COMPREPLY=()
    cmds=$("$bin" --complete-commands 2>/dev/null | tr '\n' ' ')
    [[ -n $cmds ]] ||
        cmds="run train sweep merge import-astra summarize optimize plot calibrate export-chakra"
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
    # the word before the cursor is an option that takes a value: its choices, or a file name
    if [[ $prev == -* ]] && words=$("$bin" --complete-values "$cmd" "$prev" 2>/dev/null); then
        if [[ $words == FILE ]]; then
            compopt -o filenames 2>/dev/null
            COMPREPLY=($(compgen -f -- "$cur"))
        elif [[ -n $words ]]; then
            COMPREPLY=($(compgen -W "$words" -- "$cur"))
        fi
        return
    fi
    if [[ $cur == -* ]]; then
        words=$("$bin" --complete-options "$cmd" 2>/dev/null)
        # bare options are `themis run`'s, plus --help and --version
        ((COMP_CWORD == 1)) && words+=$'\n--help\n--version'
        COMPREPLY=($(compgen -W "$(sort -u <<<"$words")" -- "$cur"))
        return
    fi
    compopt -o filenames 2>/dev/null # operands: workloads, specs, CSV and ASTRA-sim files
    COMPREPLY=($(compgen -f -- "$cur"))
}

complete -F _themis themis
