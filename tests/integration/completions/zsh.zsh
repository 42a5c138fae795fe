# Usage: zsh -f zsh.zsh SCRIPT WORDS... : prints each candidate zsh's completion system offers
# for the command line WORDS (the last one is the word being completed), one a line.
#
# Completion runs only in the line editor of an interactive shell, so one is started on a
# pseudo-terminal (zpty) with no startup files, the completion system loaded without a dump
# file or the insecure-directory check, SCRIPT sourced, and `compadd` wrapped to print each
# match it is given. Every read blocks until its line comes: the setup ends with a line that
# says it is done, and after the <TAB> a command prints an end line and exits, so the reads
# need no timing and end even when completion offers nothing.
zmodload zsh/zpty || exit 3
script=$1; shift
zpty comp zsh -f -i
zpty -w comp 'PROMPT= RPROMPT= PS2= ; unsetopt zle_bracketed_paste beep'
zpty -w comp 'autoload -Uz compinit && compinit -u -D'
zpty -w comp "source ${(q)script}"
zpty -w comp 'zstyle ":completion:*" list-grouped false; zstyle ":completion:*" insert-tab false'
# A call that only asks for matches (-O, -A, -D) is passed through; any other prints them.
zpty -w comp 'compadd() { if [[ ${@[1,(i)(-|--)]} == *-(O|A|D)\ * ]]; then builtin compadd "$@"; return; fi; local -a hits; builtin compadd -A hits "$@"; local h; for h in $hits; do print -r -- "@@candidate@@$h"; done; }'
zpty -w comp 'bindkey "^I" complete-word; print -r -- "@@ready""@@"'
line=
until [[ $line == *@@ready@@* ]]; do zpty -r comp line || exit 4; done
# The words, <TAB>, ^U to clear the line, then the end line and exit.
zpty -w -n comp "${(j: :)@}"$'\t'$'\x15'
zpty -w comp 'print -r -- "@@done""@@"; exit'
while zpty -r comp line; do
  [[ $line == *@@done@@* ]] && break
  [[ $line == *@@candidate@@* ]] && print -r -- "${${line##*@@candidate@@}%%$'\r'*}"
done
zpty -d comp
