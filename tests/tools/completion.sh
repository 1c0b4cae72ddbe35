#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# completion.sh [DIR] - source the bash completions of hixlctl and hixl-bench
# from DIR (default contrib/bash-completion) and check COMPREPLY for a few
# command lines.  Exit status 0 and "completion: ok" when all match.
# scripts/check-install.sh runs it on the installed files.
set -u

dir=${1:-$(dirname "$0")/../../contrib/bash-completion}
fails=0
err=$(mktemp)
trap 'rm -f "$err"' EXIT

# expect "LINE" "WANT": complete LINE (its last word, "" after a trailing
# space) and compare the sorted COMPREPLY, space-separated, with WANT
expect()
{
	local line=$1 want=$2 got fn
	read -r -a COMP_WORDS <<<"$line"
	[[ $line == *" " ]] && COMP_WORDS+=("")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMP_LINE=$line
	COMP_POINT=${#line}
	fn=$(complete -p "${COMP_WORDS[0]}" 2>/dev/null | sed -n 's/.*-F \([^ ]*\) .*/\1/p')
	if [ -z "$fn" ]; then
		echo "completion: FAIL: no completion function for ${COMP_WORDS[0]}" >&2
		fails=$((fails + 1))
		return
	fi
	COMPREPLY=()
	"$fn" "${COMP_WORDS[0]}" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}" \
		2>"$err"
	if [ -s "$err" ]; then
		echo "completion: FAIL: '$line': $(cat "$err")" >&2
		fails=$((fails + 1))
	fi
	got=$(printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' ' | sed 's/ *$//')
	if [ "$got" != "$want" ]; then
		echo "completion: FAIL: '$line': got '$got', want '$want'" >&2
		fails=$((fails + 1))
	fi
}

for t in hixlctl hixl-bench; do
	[ -f "$dir/$t" ] || { echo "completion: FAIL: no $dir/$t" >&2; exit 1; }
	# shellcheck source=/dev/null
	. "$dir/$t" || { echo "completion: FAIL: sourcing $dir/$t" >&2; exit 1; }
done

expect "hixlctl " "--help --version check engines info links regions stats"
expect "hixlctl c" "check"
expect "hixlctl --v" "--version"
expect "hixlctl check " "--json --size"
expect "hixlctl check --s" "--size"
expect "hixlctl check --size " ""
expect "hixlctl check --size 64G --j" "--json"
expect "hixlctl info " "--json"
expect "hixlctl stats " "--json --prometheus"
expect "hixlctl stats --prometheus " "--ids"
expect "hixlctl stats --json " ""
expect "hixlctl links --json " ""
expect "hixlctl bogus " ""
expect "hixl-bench --mo" "--mode"
expect "hixl-bench --mode " "both read write"
expect "hixl-bench --mode r" "read"
expect "hixl-bench --procs " "1 2"
expect "hixl-bench --pool " "0:0 4:8"
expect "hixl-bench --layers " ""
expect "hixl-bench --layers 4 --in" "--inflight"
expect "hixl-bench --j" "--json"
expect "hixl-bench --se" "--seed --server"
expect "hixl-bench --client " ""
expect "hixl-bench --server --po" "--pool --port"
expect "hixl-bench --ver" "--version"

[ "$fails" = 0 ] || exit 1
echo "completion: ok"
