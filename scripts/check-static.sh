#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The kernel community's own static checks on kmod/ (make check-static, and
# a stage of make check):
#
#   sparse       scripts/build-module.sh KDIR OUTDIR/sparse C=2: hixl.ko (and,
#                with CONFIG_KUNIT, hixl_kunit.ko) built with sparse over
#                every file; each warning or error in kmod/ or tests/kunit/
#                (and any compiler warning) is a finding
#   checkpatch   KDIR/scripts/checkpatch.pl --strict --no-tree -f kmod/*.[ch]
#   coccicheck   make -C KDIR coccicheck MODE=report M=(a copy of kmod/): every
#                report; a semantic patch that needs a newer spatch is
#                skipped by coccicheck itself, and named here
#   kernel-doc   KDIR/scripts/kernel-doc -none -Wall kmod/*.[ch]: every warning
#
# KDIR must be a configured and built kernel source tree (headers alone have
# no checkpatch.pl): make check passes the debug kernel's,
# tests/vm/build-kernel.sh prints it.  Each finding is made one line without
# line numbers, "TOOL FILE: MESSAGE", and compared with the exceptions of
# scripts/check-static.ignore (its header says how to add one); the findings
# no exception accepts are printed, and fail the run.  The tools' raw output
# is kept in OUTDIR (default build/static).  HIXL_JOBS (default: every CPU)
# jobs at once.
#
# Usage: scripts/check-static.sh KDIR [OUTDIR]
# Exit: 0 no finding beyond the accepted ones; 1 new findings, or a tool
# failed to run (the sparse build, coccicheck); 2 usage error or a malformed
# ignore file; 77 a tool is missing (sparse, spatch, perl, or KDIR's
# checkpatch.pl, kernel-doc or coccicheck: make deps installs the first
# three, a full kernel tree has the rest).
set -uo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
ignore_file=$repo/scripts/check-static.ignore
[ $# -ge 1 ] && [ $# -le 2 ] || { echo "usage: $0 KDIR [OUTDIR]" >&2; exit 2; }
kdir=$(cd "$1" 2>/dev/null && pwd) || { echo "check-static: no kernel tree at $1" >&2; exit 2; }
out=${2:-$repo/build/static}
jobs=${HIXL_JOBS:-$(nproc)}

missing() { echo "check-static: SKIP: $*" >&2; exit 77; }
for t in sparse spatch perl; do
	command -v "$t" >/dev/null || missing "no $t (make deps installs sparse and coccinelle)"
done
for s in checkpatch.pl kernel-doc coccicheck; do
	[ -f "$kdir/scripts/$s" ] || missing "$kdir/scripts/$s missing: KDIR must be a full kernel tree"
done
[ -r "$ignore_file" ] || { echo "check-static: no $ignore_file" >&2; exit 2; }

# ---- the ignore file: "ignore TYPE -- why" and "accept PATTERN -- why" ----
cp_ignore=() accept=()
n=0
while IFS= read -r l; do
	n=$((n + 1))
	case $l in ''|'#'*) continue ;; esac
	kind=${l%% *} body=${l#* }
	what=${body%% -- *} why=${body#* -- }
	what=${what#"${what%%[! ]*}"}
	if [ "$kind" = ignore ] && [[ $what =~ ^[A-Z0-9_]+$ ]] && [ "$why" != "$body" ] && [ -n "$why" ]; then
		cp_ignore+=("$what")
	elif [ "$kind" = accept ] && [ -n "$what" ] && [ "$why" != "$body" ] && [ -n "$why" ]; then
		accept+=("$what")
	else
		echo "check-static: $ignore_file:$n: want 'ignore CHECKPATCH_TYPE -- why' or 'accept PATTERN -- why': $l" >&2
		exit 2
	fi
done < "$ignore_file"

rm -rf "$out"
mkdir -p "$out"
out=$(cd "$out" && pwd)	# absolute: kbuild prints the paths it checks so
cd "$repo"
srcs=$(find kmod -maxdepth 1 -name '*.[ch]' ! -name '*.mod.c' | sort)
# each finding: "TOOL FILE: MESSAGE<TAB>the tool's own line"
findings=$out/findings
: > "$findings"
t_start() { t0=$(date +%s); }
t_end() { echo "check-static: $1: $(( $(date +%s) - t0 )) s"; }

# sparse: in the background, while the others run
HIXL_JOBS=$jobs scripts/build-module.sh "$kdir" "$out/sparse" C=2 > "$out/sparse.out" 2>&1 &
sparse_pid=$!
sparse_t0=$(date +%s)

# checkpatch: a few files per process, HIXL_JOBS processes
t_start
ignore_arg=
[ ${#cp_ignore[@]} -eq 0 ] || ignore_arg=--ignore=$(IFS=,; echo "${cp_ignore[*]}")
# xargs: 123 when checkpatch found something in a file, more when one died
# shellcheck disable=SC2086
echo "$srcs" | xargs -n 8 -P "$jobs" perl "$kdir/scripts/checkpatch.pl" --strict --no-tree \
	--terse --show-types --color=never $ignore_arg -f > "$out/checkpatch.out" 2>&1
rc=$?
[ "$rc" = 0 ] || [ "$rc" = 123 ] || echo "checkpatch ?: xargs exit status $rc	-" >> "$findings"
awk '/^total: / { next }
	/^(kmod\/[^:]+):[0-9]+: (ERROR|WARNING|CHECK):[A-Z0-9_]+: / {
		split($0, a, ":"); t = $0
		sub(/^[^:]+:[0-9]+: [A-Z]+:/, "", t)
		printf "checkpatch %s: %s\t%s\n", a[1], t, $0; next }
	{ printf "checkpatch ?: unexpected output: %s\t%s\n", $0, $0 }' \
	"$out/checkpatch.out" >> "$findings"
t_end checkpatch

# kernel-doc
t_start
# shellcheck disable=SC2086
perl "$kdir/scripts/kernel-doc" -none -Wall $srcs > "$out/kernel-doc.out" 2>&1 ||
	echo "kernel-doc ?: exit status $?	-" >> "$findings"
sed -E 's/^(kmod\/[^:]+):[0-9]+: (.*)$/kernel-doc \1: \2\t&/; t; s/^.*$/kernel-doc ?: unexpected output: &\t&/' \
	"$out/kernel-doc.out" >> "$findings"
t_end kernel-doc

# coccicheck on a copy of kmod/ outside any git tree: inside one, spatch
# lists the files with git, which leaves out the ignored build/ (it then
# checks nothing).  A canary file in the copy must be reported, or
# coccicheck checked nothing.
t_start
cdir=$(mktemp -d)
trap 'rm -rf "$cdir"' EXIT
cp -r kmod "$cdir/"
cat > "$cdir/kmod/hixl_static_canary.c" <<'EOF'
// SPDX-License-Identifier: GPL-2.0
#include <linux/slab.h>
void hixl_static_canary(void *p);
void hixl_static_canary(void *p)
{
	if (p)
		kfree(p);
}
EOF
if ! make -s -C "$kdir" M="$cdir/kmod" coccicheck MODE=report J="$jobs" \
		> "$out/coccicheck.out" 2>&1; then
	echo "coccicheck ?: make coccicheck failed (its output: $out/coccicheck.out)	-" >> "$findings"
fi
grep -A2 '^Skipping coccinelle SmPL patch' "$out/coccicheck.out" | sed 's/^/check-static: coccicheck: /'
# drop coccicheck's own chatter, spatch's notes on the semantic patches and
# git's (spatch asks whether the copy is in a git tree)
grep -vE "^(/[^ ]*spatch |[0-9]+ files match$|$|Please check for false positives|When using \"patch\" mode|Skipping coccinelle SmPL patch|You have coccinelle:|This SmPL patch requires:|warning: line [0-9]+: should .* be a metavariable\?$|fatal: not a git repository|make(\[[0-9]+\])?: (Entering|Leaving) directory)" \
	"$out/coccicheck.out" |
	awk -v d="$cdir/" '
	index($0, d) == 1 && match($0, /^[^:]+:[0-9]+:[0-9:-]*: /) {
		f = substr($0, length(d) + 1); sub(/:.*/, "", f)
		m = substr($0, RLENGTH + 1)
		gsub(/lines [0-9][0-9, ]*[0-9]/, "lines N", m); gsub(/line [0-9]+/, "line N", m)
		if (f == "kmod/hixl_static_canary.c") { canary = 1; next }
		printf "coccicheck %s: %s\t%s\n", f, m, $0; next }
	{ printf "coccicheck ?: unexpected output: %s\t%s\n", $0, $0 }
	END { if (!canary) printf "coccicheck ?: no report on its canary (NULL check before kfree()): it checked nothing\t-\n" }' \
	>> "$findings"
t_end coccicheck

# sparse's findings: its warnings and errors in our files (the kernel's own
# headers are not ours), and any compiler warning
wait "$sparse_pid"
t0=$sparse_t0
log=$out/sparse/build.log
if [ ! -f "$out/sparse/kmod/hixl.ko" ]; then
	echo "sparse ?: the C=2 build against $kdir failed (its output: $out/sparse.out)	-" >> "$findings"
	cat "$out/sparse.out" >&2
fi
# sparse ran over every .c file of kmod/ (C=2: "CHECK" lines), or it checked nothing
nc=$(find kmod -maxdepth 1 -name '*.c' ! -name '*.mod.c' | wc -l)
nchk=$(grep -c "^ *CHECK *$out/sparse/kmod/" "$log" 2>/dev/null)
[ "${nchk:-0}" -ge "$nc" ] ||
	echo "sparse ?: it checked ${nchk:-0} of kmod/'s $nc .c files (its output: $log)	-" >> "$findings"
if [ -f "$log" ]; then
	grep -E "^$out/sparse/(kmod|tests/kunit)/[^:]+:[0-9]+:[0-9]+: (warning|error): " "$log" | sort -u |
		sed -E "s|^$out/sparse/([^:]+):[0-9]+:[0-9]+: (.*)$|sparse \1: \2\t&|
			/\[-W[^]]*\]	/s/^sparse /build /" >> "$findings"
fi
t_end "sparse (C=2 build)"

# ---- compare with the exceptions ----
declare -A used=()
new=0 accepted=0
declare -A count=()
while IFS=$'\t' read -r f raw; do
	tool=${f%% *}
	count[$tool]=$(( ${count[$tool]:-0} + 1 ))
	ok=
	for p in "${accept[@]}"; do
		# shellcheck disable=SC2053
		if [[ $f == $p ]]; then ok=1; used[$p]=1; break; fi
	done
	if [ -n "$ok" ]; then
		accepted=$((accepted + 1))
	else
		new=$((new + 1))
		echo "check-static: NEW: $f"
		[ "$raw" = - ] || echo "check-static:      $raw"
	fi
done < "$findings"
for p in "${accept[@]}"; do
	[ -n "${used[$p]:-}" ] || echo "check-static: note: no finding matches 'accept $p' (remove it?)"
done
summary=
for tool in sparse build checkpatch coccicheck kernel-doc; do
	summary+=" $tool ${count[$tool]:-0},"
done
echo "check-static: findings:${summary%,} (raw output in $out)"
echo "check-static: $accepted accepted by $ignore_file, $new new"
[ "$new" = 0 ]
