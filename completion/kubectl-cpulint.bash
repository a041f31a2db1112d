# bash completion for kubectl-cpulint, the bare command (`kubectl cpulint`
# completes through kubectl, which runs kubectl_complete-cpulint).
#
# The program answers for itself: `kubectl-cpulint __complete WORDS...
# CURRENT` prints one candidate per line (a tab may start a description),
# then ":DIRECTIVE" (cobra's bits: 1 error, 2 no space after the word,
# 4 no file names).  No candidates and no bit 4: bash completes file
# names (complete -o default).
#
# Install: make install puts this file in share/bash-completion/completions;
# or source it from ~/.bashrc.

_kubectl_cpulint() {
	local line=${COMP_LINE:0:COMP_POINT} cur="" out directive cand
	local wb=${COMP_WORDS[COMP_CWORD]} pre
	local -a words cands
	read -r -a words <<<"$line"
	if [[ $line != *[[:space:]] ]]; then
		cur=${words[${#words[@]}-1]}
		unset "words[${#words[@]}-1]"
	fi
	out=$("${words[0]}" __complete "${words[@]:1}" "$cur" 2>/dev/null) ||
		return
	directive=${out##*:}
	[[ $directive =~ ^[0-9]+$ ]] || directive=0
	out=${out%:*}
	(( directive & 1 )) && return
	(( directive & 2 )) && compopt -o nospace 2>/dev/null
	# bash replaces only the part after the last word break (=, :), so
	# candidates lose what comes before it.
	pre=${cur%"$wb"}
	COMPREPLY=()
	while IFS= read -r cand; do
		[[ -n $cand ]] || continue
		cand=${cand%%$'\t'*}
		[[ $cand == "$cur"* ]] || continue
		COMPREPLY+=("${cand#"$pre"}")
	done <<<"$out"
	if (( ${#COMPREPLY[@]} == 0 && (directive & 4) )); then
		compopt +o default 2>/dev/null
	fi
}

complete -o default -F _kubectl_cpulint kubectl-cpulint
