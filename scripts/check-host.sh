#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# check-host.sh - make check-host: what can be checked on the build host
# itself, without root, a VM or /dev/hixl, in well under a minute once
# built (make check-host builds first):
#
#   headers   every installed header alone, C99 / C++11 / C++17, -pedantic
#             -Werror (make check-headers)
#   ABI       the library against lib/libhixl-user.abi (scripts/check-abi.sh)
#   user      the user tests that need no device (HOST_TESTS below: names,
#             status codes, options, physical memory, profiler hooks)
#   C++       tests/cpp/hixl-cpp-test (its device tests skip without /dev/hixl)
#   Python    tests/python with pytest (its engine tests skip without /dev/hixl)
#   bench     tests/bench: bench/results.json and bench/bench-diff.py on fixtures
#   3rd party tests/tools/third-party.sh: snapshots found, or fetched and checked
#   contrib   tests/tools/test-contrib.py: the Grafana dashboard's metrics in
#             hixlctl's saved output, the textfile exporter, the systemd units
#   layers    kmod/'s layers and their budgets (scripts/kmod-layers.py)
#   install   scripts/check-install.sh
#
# Everything here also runs in make check (headers in its build, which
# sets WERROR=1; the tests in the VMs; the install check), which is why
# make check does not run this script.  Closing line: "N passed, N failed,
# N skipped" over the test results, each other part counting as one; exit
# status 0 when nothing failed.
set -u
cd "$(dirname "$0")/.." || exit 1
t0=$(date +%s)
passed=0 failed=0 skipped=0 fails=""

part() { echo "--- check-host: $* ($(( $(date +%s) - t0 )) s)"; }
fail() { echo "check-host: FAILED: $*"; failed=$((failed + 1)); fails="$fails
check-host: FAILED: $*"; }

# The user tests that run without /dev/hixl (each passes, or skips for a
# reason of the machine, e.g. no huge pages): every other test of
# tests/user needs the module and runs in the VMs.
HOST_TESTS="lib_names lib_status lib_options lib_version errors_status errors_strerror
	errors_no_module errors_option_names
	physmem_granularity physmem_malloc_errors physmem_normal_lifecycle physmem_numa_node
	physmem_huge_exhausted physmem_huge_2m physmem_huge_1g physmem_reserve physmem_map_errors
	physmem_export_import physmem_share_scm_rights physmem_share_scm_rights_huge
	physmem_socket_errors physmem_threads
	prof_heap prof_regions prof_many_regions prof_probes_static prof_probes_shared"

# count_tap FILE LABEL [PLAN]: add a TAP file's results (ok, not ok,
# "# SKIP"); with PLAN, the plan must be 1..PLAN (every test named ran)
count_tap() {
	p=$(grep -c '^ok ' "$1") s=$(grep -c '^ok .* # SKIP' "$1") f=$(grep -c '^not ok ' "$1")
	p=$((p - s))
	if ! grep -q '^1\.\.[0-9]' "$1"; then
		fail "$2: no TAP plan"
	elif [ -n "${3:-}" ] && ! grep -qx "1\.\.$3" "$1"; then
		fail "$2: $(grep '^1\.\.' "$1") results for $3 tests named"
	fi
	echo "check-host: $2: $p passed, $f failed, $s skipped"
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
	[ "$f" = 0 ] || fails="$fails
$(grep '^not ok ' "$1" | sed "s/^/check-host: FAILED: $2: /")"
}

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT INT TERM

part "header hygiene"
if make -s check-headers; then
	passed=$((passed + 1))
else
	fail "header hygiene (make check-headers)"
fi

part "library ABI (abidiff against lib/libhixl-user.abi)"
scripts/check-abi.sh
case $? in
0) passed=$((passed + 1)) ;;
77) skipped=$((skipped + 1)) ;;
*) fail "library ABI (scripts/check-abi.sh)" ;;
esac

part "user tests without a device"
set -- $HOST_TESTS	# one word a name
if [ -x tests/user/hixl-test ]; then
	tests/user/hixl-test "$@" > "$out/user.tap" 2>&1 || cat "$out/user.tap"
	count_tap "$out/user.tap" "user tests" $#
	# a test here that skips for want of the device does not belong here
	if grep -E '^ok .* # SKIP .*(/dev/hixl|hixl\.ko)' "$out/user.tap"; then
		fail "user tests: HOST_TESTS names tests that need /dev/hixl"
	fi
else
	fail "no tests/user/hixl-test (make tests)"
fi

part "C++ API"
if [ -x tests/cpp/hixl-cpp-test ]; then
	tests/cpp/hixl-cpp-test > "$out/cpp.tap" 2>&1 || cat "$out/cpp.tap"
	count_tap "$out/cpp.tap" "C++"
else
	fail "no tests/cpp/hixl-cpp-test (make tests)"
fi

part "Python package"
if ! ls python/hixl/_hixl*.so >/dev/null 2>&1; then
	echo "check-host: Python: skipped, the extension is not built (make python; needs python3-dev)"
	skipped=$((skipped + 1))
elif ! /usr/bin/python3 -c 'import pytest' 2>/dev/null; then
	fail "Python: no pytest for /usr/bin/python3 (apt-get install python3-pytest)"
else
	PYTHONDONTWRITEBYTECODE=1 /usr/bin/python3 -m pytest -q -p no:cacheprovider tests/python \
		> "$out/python.log" 2>&1
	rc=$?
	tail -1 "$out/python.log"
	# "N passed, N skipped in S" (pytest -q's last line)
	last=$(tail -1 "$out/python.log")
	p=$(echo "$last" | sed -n 's/.*\b\([0-9][0-9]*\) passed.*/\1/p')
	s=$(echo "$last" | sed -n 's/.*\b\([0-9][0-9]*\) skipped.*/\1/p')
	passed=$((passed + ${p:-0})) skipped=$((skipped + ${s:-0}))
	if [ "$rc" != 0 ] || [ "${p:-0}" = 0 ]; then
		grep -E '^(FAILED|ERROR)' "$out/python.log"
		fail "Python: pytest tests/python (exit $rc)"
	fi
fi

part "bench scripts: results.json and bench-diff on fixtures (tests/bench)"
py=/usr/bin/python3; [ -x "$py" ] || py=python3
"$py" tests/bench/test-results-json.py > "$out/bench.tap" 2>&1 || cat "$out/bench.tap"
count_tap "$out/bench.tap" "bench scripts"

part "contrib: Grafana dashboard's metrics, textfile exporter, systemd units (tests/tools)"
"$py" -B tests/tools/test-contrib.py > "$out/contrib.tap" 2>&1 || cat "$out/contrib.tap"
count_tap "$out/contrib.tap" "contrib"

part "third-party sources: found, or fetched and checked (tests/tools/third-party.sh)"
tests/tools/third-party.sh > "$out/third-party.tap" 2>&1
count_tap "$out/third-party.tap" "third-party sources" 10

part "layers of kmod/ (scripts/kmod-layers.py, kmod/LAYERS)"
if "$py" scripts/kmod-layers.py; then
	passed=$((passed + 1))
else
	fail "layers (scripts/kmod-layers.py)"
fi
"$py" -B tests/tools/test-kmod-layers.py > "$out/layers.tap" 2>&1 || cat "$out/layers.tap"
count_tap "$out/layers.tap" "kmod-layers"

part "install check"
if scripts/check-install.sh; then
	passed=$((passed + 1))
else
	fail "install check (scripts/check-install.sh)"
fi

echo "check-host: took $(( $(date +%s) - t0 )) s$fails"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
