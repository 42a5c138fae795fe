# Usage: bash --norc --noprofile bash.sh SCRIPT WORDS... : prints each candidate the completion
# function SCRIPT registers for ome-render offers for the command line WORDS (the last one is
# the word being completed), one a line, as bash calls it on <TAB>.
source "$1"; shift
fn=$(complete -p ome-render | sed -n 's/.*-F \([^ ]*\) .*/\1/p')
[ -n "$fn" ] || { echo "no completion function registered for ome-render" >&2; exit 3; }
COMP_WORDS=("$@"); COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
COMP_LINE="${COMP_WORDS[*]}"; COMP_POINT=${#COMP_LINE}
"$fn" ome-render "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
printf '%s\n' "${COMPREPLY[@]}"
