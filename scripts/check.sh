#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make check: everything CI runs, on a fresh Debian 12 machine, as root.
#
#   1. make deps                  packages (idempotent)
#   2. make                       hixl.ko (the running kernel's headers, else the
#                                 stock ones: KVER=), libhixl-user, tools, tests;
#                                 make install into a scratch root (scripts/check-install.sh);
#                                 bench/results.json and bench-diff on fixtures (tests/bench);
#                                 README.md against the tree (tests/tools/readme.py);
#                                 contrib/ (tests/tools/test-contrib.py: the Grafana
#                                 dashboard's metrics, the textfile exporter, systemd units)
#   3. compat                     hixl.ko with W=1, no warnings, against Debian's
#                                 6.1 and 6.12 headers; kmod/'s layers
#                                 (scripts/kmod-layers.py: no arrow up, circles);
#                                 the share of comment lines (scripts/kmod-comments.py)
#   4. debug kernel               tests/vm/build-kernel.sh (cached by config hash);
#                                 kmod/ and tests/kunit/ exported as
#                                 drivers/infiniband/ulp/hixl/ and built against it;
#      static                     the kernel's static checks on kmod/ with its tree
#                                 (scripts/check-static.sh: sparse, checkpatch
#                                 --strict, coccicheck, kernel-doc; one test)
#   5. debug VM                   KUnit + user + C++ tests, KASAN/lockdep/kmemleak,
#                                 then in the same boot:
#      fuzz                       10,000 random ioctls and uring_cmds, counters and pins
#                                 back to zero (make fuzz: 1,000,000)
#      wire fuzz                  60 s of hostile-peer cases against a victim engine
#                                 (tests/fuzz/hixl-wire-fuzz; make fuzz-wire: 25 min)
#   6. stock VMs                  user + C++ + Python + NIXL tests on Debian's 6.1 and 6.12 kernels,
#                                 both VMs at once
#      (6 runs the NIXL backend plugin's tests, tests/nixl/, when
#      NIXL could be built: scripts/build-nixl.sh, cached by hash, runs in
#      the background from stage 2 on, then make nixl)
#   7. two VMs                    6.1 and 6.12 joined by a QEMU socket network:
#                                 READ/WRITE between two kernels, hixl-bench
#                                 --server/--client, examples/exchange, a peer
#                                 restart and a silent peer (keep-alive)
#
# Each VM run fails on any BUG/WARNING/KASAN/lockdep/kmemleak/oops line in the
# guest log.  Closing line: "N passed, N failed" over KUnit and user tests
# together; a stage that fails before producing test results counts as one
# failure.  `scripts/check.sh compat` runs stage 3 alone, `scripts/check.sh
# fuzz-both [CALLS [SEED [SECONDS]]]` both fuzzers in a boot of their own.
set -uo pipefail
# every make below, and scripts/check-install.sh's: a compiler warning in the
# library, tools, tests or Python extension fails the build (the Makefile's
# default only prints it)
export WERROR=1
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
out=$repo/build/check
mkdir -p "$out"
passed=0 failed=0 skipped=0
t0=$(date +%s)

# each stage's name and start, for the times table at the end
stage_names=() stage_starts=()
stage() {
	stage_names+=("$*")
	stage_starts+=("$(date +%s)")
	echo; echo "=== check: $* ($(( $(date +%s) - t0 )) s)"
}
# Where the time went: each stage's seconds, then the 15 slowest user tests
# (one column per VM run of this check: debug, stock 6.1, stock 6.12).
times_table() {
	local i n=${#stage_names[@]} taps=() f
	echo "check: times (s) by stage:"
	for ((i = 0; i + 1 < n; i++)); do
		printf 'check:   %6d  %.100s\n' $(( stage_starts[i + 1] - stage_starts[i] )) \
			"${stage_names[i]}"
	done
	for f in build/vm/debug/user.tap build/vm/stock-6.1/user.tap build/vm/stock-6.12/user.tap; do
		[ -s "$f" ] && taps+=("$f")
	done
	[ ${#taps[@]} -gt 0 ] || return 0
	echo "check: the 15 slowest user tests (s; columns: ${taps[*]})"
	scripts/test-times.sh -n 15 "${taps[@]}" | sed 's/^/check:   /'
}
fails=()
diags=()	# the failing tests' own lines (tap_fail_diags)
stage_fail() { echo "check: FAILED: $*"; failed=$((failed + 1)); fails+=("$*"); }
# A VM run failed: say so, with what a CI log needs to tell why (the failed
# tests, the end of the guest's console: a hang's blocked tasks, a splat).
vm_fail() {	# NAME WHAT
	stage_fail "$2"
	grep -h -B3 '^not ok' "build/vm/$1"/*.tap 2>/dev/null | tail -40
	echo "check: the end of build/vm/$1/console.log:"
	tail -40 "build/vm/$1/console.log" 2>/dev/null
}

kver_of() {	# newest Debian kernel of a series installed in /boot
	ls /boot | sed -n "s/^vmlinuz-\($1\.[0-9][0-9.+a-z-]*-amd64\)$/\1/p" | sort -V | tail -1
}

compat() {
	local series kver ok=0
	for series in 6.1 6.12; do
		kver=$(kver_of "$series")
		if [ -z "$kver" ]; then
			stage_fail "no Debian $series kernel headers (make deps)"; ok=1; continue
		fi
		if scripts/build-module.sh "/lib/modules/$kver/build" "build/compat-$series" W=1; then
			echo "check: hixl.ko builds warning-free (W=1) against $kver"
		else
			stage_fail "W=1 build against $kver"; ok=1
		fi
	done
	return $ok
}

# Count TAP results ("ok", "not ok", "# SKIP") of the user runner.
count_tap() {
	local f=$1 p f_ s
	if [ ! -s "$f" ] || ! grep -q '^1\.\.[0-9]' "$f"; then
		stage_fail "no complete TAP output in $f"; return
	fi
	s=$(grep -c '^ok .* # SKIP' "$f")
	p=$(( $(grep -c '^ok ' "$f") - s ))
	f_=$(grep -c '^not ok ' "$f")
	echo "check: user tests ($2): $p passed, $f_ failed, $s skipped"
	while read -r l; do fails+=("$2: $l"); done < <(grep '^not ok ' "$f")
	# what each failing test printed ("# " lines since the test before
	# it), shown again at the end: CI keeps only the end of the output
	while IFS= read -r l; do diags+=("$2: $l"); done < <(tap_fail_diags "$f")
	passed=$((passed + p)) failed=$((failed + f_)) skipped=$((skipped + s))
}

# The "# " lines a TAP FILE gives before each "not ok" since the result
# before it (at most the last 30 of each test; hixl-test's "# took" lines
# left out), each after its test's "not ok" line.
tap_fail_diags() {	# FILE
	awk '/^(not )?ok / { if (/^not ok /) { print; for (i = (n > 30 ? n - 30 : 0); i < n; i++) print "  " d[i] }
			     n = 0; next }
	     /^# took / { next }
	     /^#/ { d[n++] = $0 }' "$1"
}

# The TAP files of one guest-tests.sh run: the user tests, the C++ API, the
# Python package.
count_guest() {	# NAME LABEL
	count_tap "build/vm/$1/user.tap" "$2"
	# where the stage's time went (hixl-test's "# took" lines)
	scripts/test-times.sh -n 5 "build/vm/$1/user.tap" 2>/dev/null | sed "s/^/check: $2: time: /"
	count_tap "build/vm/$1/cpp.tap" "$2, C++"
	count_part "build/vm/$1/python.tap" "$2, Python"
	count_part "build/vm/$1/nixl.tap" "$2, NIXL C++"
	count_part "build/vm/$1/nixl-gtest.tap" "$2, NIXL's gtest"
	count_part "build/vm/$1/nixl-python.tap" "$2, NIXL Python"
}

# The TAP of a part a boot may leave out (Python, NIXL's tests): as
# count_tap, and a whole-file skip ("1..0 # SKIP why": no NIXL build, or a
# part the boot does not run) is one skip with its reason
count_part() {	# FILE LABEL
	if grep -q '^1\.\.0 # SKIP' "$1" 2>/dev/null; then
		echo "check: $2: $(sed -n 's/^1\.\.0 # //p' "$1")"
		skipped=$((skipped + 1))
	else
		count_tap "$1" "$2"
	fi
}

# NIXL, for the NIXL backend plugin's tests: built (or found in the cache)
# in the background while the stages before the VMs run; nixl_wait then
# builds the plugin and its tests (build/nixl/).  A missing third-party
# snapshot (exit 77) makes their tests skip with the reason; any other
# failure fails the stage.
nixl_pid=
nixl_start() {
	rm -rf build/nixl
	# the snapshots beside the checkout, or fetched (scripts/third-party.sh)
	( tp=$(scripts/third-party.sh nixl) && HIXL_THIRD_PARTY=$tp exec scripts/build-nixl.sh ) \
		> "$out/nixl-prefix" 2> "$out/nixl-build.log" &
	nixl_pid=$!
}
nixl_wait() {
	local rc
	[ -n "$nixl_pid" ] || return
	wait "$nixl_pid"; rc=$?
	nixl_pid=
	if [ "$rc" = 77 ]; then
		echo "check: NIXL tests will SKIP: $(tail -1 "$out/nixl-build.log")"
	elif [ "$rc" != 0 ]; then
		cat "$out/nixl-build.log"
		stage_fail "NIXL build (scripts/build-nixl.sh)"
	elif make -s nixl NIXL_PREFIX="$(cat "$out/nixl-prefix")"; then
		echo "check: NIXL at $(cat "$out/nixl-prefix"); plugin build/nixl/libplugin_HIXL.so"
		# the plugin against NIXL in Debian's, lib/ and lib64 layouts
		tests/tools/nixl-layout.sh "$(cat "$out/nixl-prefix")" > "$out/nixl-layout.tap" 2>&1
		count_tap "$out/nixl-layout.tap" "NIXL install layouts"
	else
		stage_fail "make nixl"
		rm -rf build/nixl
	fi
}

# Merge the per-suite KTAP documents into one and parse it with the kernel's
# own KUnit parser (tools/testing/kunit/kunit.py).
count_kunit() {
	local dir=$1 kdir=$2 n merged=$1/all.ktap summary p f s e c
	n=$(ls "$dir"/*.ktap 2>/dev/null | grep -vc '/all.ktap$')
	if [ "$n" = 0 ]; then
		stage_fail "no KUnit results in $dir"; return
	fi
	{
		echo "KTAP version 1"
		echo "1..$n"
		i=0
		for f in "$dir"/hixl_*.ktap; do
			i=$((i + 1))
			# drop the document header, renumber the suite's own result line
			awk -v i="$i" 'FNR <= 2 { next } /^(not )?ok 1 / { sub(/ok 1 /, "ok " i " ") } { print }' "$f"
		done
	} > "$merged"
	summary=$(cd "$kdir" && python3 tools/testing/kunit/kunit.py parse "$merged" 2>&1 | tee "$dir/parse.log" | grep 'Testing complete')
	echo "check: KUnit: $summary"
	p=$(sed -n 's/.*passed: \([0-9]*\).*/\1/p' <<< "$summary"); p=${p:-0}
	f=$(sed -n 's/.*failed: \([0-9]*\).*/\1/p' <<< "$summary"); f=${f:-0}
	s=$(sed -n 's/.*skipped: \([0-9]*\).*/\1/p' <<< "$summary"); s=${s:-0}
	c=$(sed -n 's/.*crashed: \([0-9]*\).*/\1/p' <<< "$summary"); c=${c:-0}
	e=$(sed -n 's/.*errors: \([0-9]*\).*/\1/p' <<< "$summary"); e=${e:-0}
	[ -n "$summary" ] || e=1
	[ $((f + c + e)) = 0 ] || grep -E 'FAILED|CRASHED|ERROR|Expected' "$dir/parse.log" | head -30
	passed=$((passed + p)) failed=$((failed + f + c + e)) skipped=$((skipped + s))
}

# The verdict of an ioctl fuzzer run (one test): RC its exit status, LOG its output.
fuzz_verdict() {	# RC LOG CALLS SEED
	if [ "$1" = 0 ]; then
		passed=$((passed + 1))
		grep -E '^hixl-fuzz: seed|result' "$2"
	else
		tail -30 "$2"
		stage_fail "fuzz: $3 calls, seed $4"
	fi
}

# The verdict of a wire fuzzer run (one test, or a skip): RC, LOG as above.
fuzz_wire_verdict() {	# RC LOG CASES SECS SEED
	if [ "$1" = 0 ] && grep -q '^result PASS' "$2"; then
		passed=$((passed + 1))
		grep -E '^hixl-wire-fuzz: seed .*cases \(|^hixl-wire-fuzz: rail cases|^well-formed|^rail|^result' "$2"
	elif grep -q '^result SKIP' "$2"; then
		skipped=$((skipped + 1))
		grep 'SKIP' "$2"
	else
		grep -E '^VIOLATION|^FAIL' "$2" | head -20
		tail -30 "$2"
		stage_fail "wire fuzz: $3 cases / $4 s, seed $5"
	fi
}

# A hixl.ko for the debug kernel, W=1, in build/fuzz-debug; 1 (the failure
# counted) when there is none.
fuzz_ko=build/fuzz-debug/kmod/hixl.ko
fuzz_module() {
	local kdir
	kdir=$(tests/vm/build-kernel.sh) || { stage_fail "debug kernel build"; return 1; }
	scripts/build-module.sh "$kdir" build/fuzz-debug W=1 || { stage_fail "module build"; return 1; }
}

# The ioctl fuzzer in the debug VM (make fuzz); counts as one test.
fuzz() {
	local calls=$1 seed=$2
	fuzz_module || return
	HIXL_VM_TIMEOUT=$(( 600 + calls / 100 )) \
	tests/vm/run.sh --kernel debug --module "$fuzz_ko" --name fuzz -- \
		tests/fuzz/hixl-fuzz --calls "$calls" --seed "$seed" > build/vm/fuzz.log 2>&1
	fuzz_verdict $? build/vm/fuzz.log "$calls" "$seed"
}

# The wire fuzzer in the debug VM (a hostile peer, tests/fuzz/README.md;
# make fuzz-wire); one test.  Bounded by cases and by seconds of fuzzing,
# whichever ends first.
fuzz_wire() {
	local cases=$1 seed=$2 secs=$3
	fuzz_module || return
	HIXL_VM_TIMEOUT=$(( 900 + secs * 2 )) \
	tests/vm/run.sh --kernel debug --module "$fuzz_ko" --name fuzz-wire -- \
		tests/fuzz/hixl-wire-fuzz --cases "$cases" --seed "$seed" --time "$secs" \
		> build/vm/fuzz-wire.log 2>&1
	fuzz_wire_verdict $? build/vm/fuzz-wire.log "$cases" "$secs" "$seed"
}

# scripts/check.sh fuzz-both: both fuzzers, one after the other, in one boot
# of the debug VM with KO (make check runs them after the tests of stage
# 5's boot instead): one boot, one teardown and kmemleak scan (two boots
# cost about 135 s more on the CI machine).  Each counts as one
# test by its own exit status and output (build/vm/fuzz/fuzz.log,
# fuzz-wire.log); a BUG, WARNING, KASAN, lockdep or kmemleak report in the
# boot's log fails the boot as one more failure (its console.log's
# timestamps and the two logs tell which fuzzer ran when).
fuzz_both() {	# CALLS SEED CASES WIRE_SEED SECS KO
	HIXL_VM_TIMEOUT=$(( 1500 + $1 / 100 + $5 * 2 )) \
	tests/vm/run.sh --kernel debug --module "$6" --name fuzz -- \
		tests/fuzz/guest-both.sh "$1" "$2" "$3" "$4" "$5" \
		> build/vm/fuzz-both.log 2>&1 || vm_fail fuzz "fuzz VM run (both fuzzers)"
	fuzz_both_verdicts build/vm/fuzz "$1" "$2" "$3" "$4" "$5"
}

# The two verdicts of a tests/fuzz/guest-both.sh run whose $HIXL_WORK was DIR.
fuzz_both_verdicts() {	# DIR CALLS SEED CASES WIRE_SEED SECS
	fuzz_verdict "$(cat "$1/fuzz.rc" 2>/dev/null || echo 1)" "$1/fuzz.log" "$2" "$3"
	fuzz_wire_verdict "$(cat "$1/fuzz-wire.rc" 2>/dev/null || echo 1)" "$1/fuzz-wire.log" \
		"$4" "$6" "$5"
}

# The two-VM run: Debian 6.1 (server) and 6.12 (client) over a QEMU socket
# network (tests/pair/guest.sh on each: hixl-pair, hixl-bench --server and
# --client, examples/exchange, NIXL agents with the backend HIXL when the
# plugin is built, a peer restart and a silent peer); its TAP
# counts as tests.  Returns 1 when
# anything failed.
pair() {
	local f0=$failed
	if [ -f build/compat-6.1/kmod/hixl.ko ] && [ -f build/compat-6.12/kmod/hixl.ko ]; then
		tests/vm/run-pair.sh --kernel 6.1 --module build/compat-6.1/kmod/hixl.ko \
			--kernel-b 6.12 --module-b build/compat-6.12/kmod/hixl.ko > build/vm/pair.log 2>&1 \
			|| stage_fail "two-VM run"
		cat build/vm/pair.log
		cat build/vm/pair-a/output build/vm/pair-b/output 2>/dev/null | grep -E '^(ok|not ok|1\.\.)' \
			> build/vm/pair.tap
		# two plans in one file: count the results, require both plans
		if [ "$(grep -c '^1\.\.' build/vm/pair.tap)" = 2 ]; then
			count_tap build/vm/pair.tap "two VMs"
		else
			stage_fail "two-VM run produced no complete TAP"
		fi
	else
		stage_fail "no hixl.ko for the two-VM run"
	fi
	[ "$failed" = "$f0" ]
}

# make pair-soak: the two-VM run N times in a row, stopping at the first
# failure (the pair test once failed on a fresh clone)
if [ "${1:-}" = pair ]; then
	runs=${2:-30}
	make -s userspace && compat || exit 1
	mkdir -p build/vm
	for i in $(seq "$runs"); do
		t1=$(date +%s)
		if pair > "build/vm/pair-soak-$i.log" 2>&1; then
			echo "pair-soak: run $i of $runs ok ($(( $(date +%s) - t1 )) s)"
		else
			echo "pair-soak: run $i of $runs FAILED ($(( $(date +%s) - t1 )) s); build/vm/pair-soak-$i.log:"
			grep -E '^not ok|errno|FAIL' "build/vm/pair-soak-$i.log" | head -40
			echo "$((i - 1)) passed, 1 failed"
			exit 1
		fi
	done
	echo "$runs passed, 0 failed"
	exit 0
fi
if [ "${1:-}" = compat ]; then
	compat
	exit $?
fi
if [ "${1:-}" = fuzz-wire ]; then
	make -s userspace || exit 1
	mkdir -p build/vm
	fuzz_wire "${2:-6000}" "${3:-1}" "${4:-1500}"
	echo "$passed passed, $failed failed, $skipped skipped"
	[ "$failed" = 0 ]
	exit
fi
# the fuzz stages of make check alone: both fuzzers in one debug VM boot
if [ "${1:-}" = fuzz-both ]; then
	make -s userspace || exit 1
	mkdir -p build/vm
	fuzz_module && fuzz_both "${2:-10000}" "${3:-1}" 100000 "${3:-1}" "${4:-60}" "$fuzz_ko"
	echo "$passed passed, $failed failed, $skipped skipped"
	[ "$failed" = 0 ]
	exit
fi
if [ "${1:-}" = fuzz ]; then
	make -s userspace || exit 1
	mkdir -p build/vm
	fuzz "${2:-1000000}" "${3:-1}"
	echo "$passed passed, $failed failed"
	[ "$failed" = 0 ]
	exit
fi

stage "deps"
scripts/deps.sh || { stage_fail "make deps"; echo "$passed passed, $failed failed"; exit 1; }

stage "build (module for the running or the stock kernel, library, tools, tests)"
# `make` alone stops without the running kernel's headers (the build
# machines have none): say which kernel, Debian's stock one (the release
# linux-image-amd64 points at) when the running one has no headers
module_kver=$(uname -r)
if [ ! -d "/lib/modules/$module_kver/build" ]; then
	module_kver=$(dpkg-query -W -f='${Depends}' linux-image-amd64 2>/dev/null |
		sed -n 's/^linux-image-\([^ ,]*\).*/\1/p')
fi
echo "check: hixl.ko for $module_kver"
make -s all KVER="$module_kver" || stage_fail "make"

stage "NIXL: scripts/build-nixl.sh in the background (Abseil and NIXL, cached in /var/cache/hixl)"
nixl_start

stage "library ABI against lib/libhixl-user.abi (abidiff)"
if scripts/check-abi.sh; then
	passed=$((passed + 1))
else
	stage_fail "library ABI check"
fi

stage "install: make install into a scratch root, build and run against it"
if scripts/check-install.sh; then
	passed=$((passed + 1))
else
	stage_fail "install check"
fi

stage "bench scripts: results.json and bench-diff on fixtures (tests/bench)"
/usr/bin/python3 tests/bench/test-results-json.py > "$out/bench.tap" 2>&1 || cat "$out/bench.tap"
count_tap "$out/bench.tap" "bench scripts"

stage "README: length, tracepoints, quick start, benchmark block, links (tests/tools/readme.py)"
/usr/bin/python3 tests/tools/readme.py > "$out/readme.tap" 2>&1
count_tap "$out/readme.tap" "README"
stage "make: the kernel hixl.ko is built for (tests/tools/make-kernel.sh)"
tests/tools/make-kernel.sh > "$out/make-kernel.tap" 2>&1
count_tap "$out/make-kernel.tap" "make's kernel"
stage "contrib: Grafana dashboard's metrics, textfile exporter, systemd units (tests/tools/test-contrib.py)"
/usr/bin/python3 -B tests/tools/test-contrib.py > "$out/contrib.tap" 2>&1 || cat "$out/contrib.tap"
count_tap "$out/contrib.tap" "contrib"
stage "third-party sources: found beside the checkout or fetched and checked (tests/tools/third-party.sh)"
tests/tools/third-party.sh > "$out/third-party.tap" 2>&1
count_tap "$out/third-party.tap" "third-party sources"

stage "compat: W=1 against Debian's 6.1 and 6.12 headers"
compat

stage "layers: kmod/LAYERS and its budgets (scripts/kmod-layers.py, tests/tools/test-kmod-layers.py)"
if /usr/bin/python3 scripts/kmod-layers.py; then
	passed=$((passed + 1))
else
	stage_fail "layers (scripts/kmod-layers.py)"
fi
/usr/bin/python3 -B tests/tools/test-kmod-layers.py > "$out/layers.tap" 2>&1 || cat "$out/layers.tap"
# the share of kmod/'s lines that are comments, by budget
if /usr/bin/python3 scripts/kmod-comments.py --max 0.20; then
	passed=$((passed + 1))
else
	stage_fail "comments (scripts/kmod-comments.py --max 0.20)"
fi
count_tap "$out/layers.tap" "kmod-layers"

stage "debug kernel"
kdir=$(tests/vm/build-kernel.sh); kernel_rc=$?
stage "NIXL: waiting for its build, then make nixl"
nixl_wait
if [ "$kernel_rc" = 0 ]; then
	stage "host: in-tree export (scripts/export-intree.sh) built against the debug kernel"
	tests/tools/export-intree.sh "$kdir" > "$out/export-intree.tap" 2>&1
	count_tap "$out/export-intree.tap" "in-tree export"
	stage "static: sparse, checkpatch --strict, coccicheck, kernel-doc on kmod/ against the debug kernel (scripts/check-static.sh)"
	# one test; a missing tool (77) fails too: make deps installs them
	if scripts/check-static.sh "$kdir" build/static; then
		passed=$((passed + 1))
	else
		stage_fail "static checks (scripts/check-static.sh; exceptions: scripts/check-static.ignore)"
	fi
	stage "debug VM: KUnit + user tests (KASAN, lockdep, kmemleak), then 10000 random calls (ioctl and io_uring) and 60 s of hostile-peer cases (make fuzz runs 1,000,000 calls, make fuzz-wire 25 min)"
	if scripts/build-module.sh "$kdir" build/debug W=1; then
		# the fuzzers after the tests in the same boot (a boot and its
		# kmemleak scans cost about 100 s under KASAN): a splat or leak
		# fails the boot, whose console.log's timestamps and the fuzzers'
		# logs (fuzz.log, fuzz-wire.log) tell which ran when
		fuzz_args=(10000 "${HIXL_FUZZ_SEED:-1}" 100000 "${HIXL_WIRE_SEED:-1}" 60)
		# KUnit, the C and C++ tests: the Python package's and the NIXL
		# backend's tests drive the same ioctls through the library and
		# run on both stock kernels (docs/developing.md)
		# the command on one line: the guest's sh (dash) takes no $'...' quoting of newlines
		HIXL_VM_TIMEOUT=${HIXL_VM_TIMEOUT:-2700} \
		tests/vm/run.sh --kernel debug --module build/debug/kmod/hixl.ko --name debug -- sh -c \
			'export HIXL_GUEST_PARTS="user cpp" HIXL_GUEST_SKIP_WHY="runs on the stock kernels"; tests/vm/guest-tests.sh "$1"; rc=$?; shift; tests/fuzz/guest-both.sh "$@"; exit $rc' \
			sh build/debug/tests/kunit/hixl_kunit.ko "${fuzz_args[@]}" \
			|| vm_fail debug "debug VM run"
		count_kunit "$repo/build/vm/debug/kunit" "$kdir"
		count_guest debug "debug kernel"
		fuzz_both_verdicts build/vm/debug "${fuzz_args[@]}"
	else
		stage_fail "module build against the debug kernel"
	fi
else
	stage_fail "debug kernel build"
fi

# The two stock VMs at once, each on one host thread (QEMU's single-threaded
# TCG): on the 2-core build machines both together take about as long as
# one with a thread per vCPU, whose tests mostly wait (docs/developing.md,
# "make check").  Each has its own folder and no network.
stage "stock 6.1 and 6.12 VMs at once: user tests"
stock_pids=()
for series in 6.1 6.12; do
	if [ -f "build/compat-$series/kmod/hixl.ko" ]; then
		HIXL_VM_TCG_THREAD=single \
		tests/vm/run.sh --kernel "$series" --module "build/compat-$series/kmod/hixl.ko" \
			--name "stock-$series" -- tests/vm/guest-tests.sh \
			> "build/vm/stock-$series.log" 2>&1 &
		stock_pids+=("$series:$!")
	else
		stage_fail "no hixl.ko for $series"
	fi
done
for sp in "${stock_pids[@]}"; do
	series=${sp%%:*}
	wait "${sp#*:}"; rc=$?
	cat "build/vm/stock-$series.log"
	[ "$rc" = 0 ] || vm_fail "stock-$series" "stock $series VM run"
	count_guest "stock-$series" "stock $series kernel"
done

stage "two VMs: Debian 6.1 (server) and 6.12 (client) over a QEMU socket network"
pair

stage "done"
times_table
echo "check: took $(( $(date +%s) - t0 )) s"
for f in "${diags[@]}"; do echo "check: failed test: $f"; done
for f in "${fails[@]}"; do echo "check: FAILED: $f"; done
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
