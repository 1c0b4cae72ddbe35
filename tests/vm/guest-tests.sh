#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs inside the test VM (tests/vm/run.sh): the KUnit suites, when a
# hixl_kunit.ko is given, then the user test runner.
#
# Usage: guest-tests.sh [HIXL_KUNIT_KO]
# Writes $HIXL_WORK/kunit/<suite>.ktap (one KTAP document per suite, from
# /sys/kernel/debug/kunit/<suite>/results), $HIXL_WORK/user.tap (the C
# library and the module), $HIXL_WORK/cpp.tap (the C++ API) and
# $HIXL_WORK/python.tap (the Python package) and $HIXL_WORK/nixl-python.tap
# (NIXL's Python nixl_agent in vLLM's call sequence: the same pytest run), and
# with the NIXL backend plugin built (make nixl: build/nixl/)
# $HIXL_WORK/nixl.tap (NIXL's C++ agent API) and $HIXL_WORK/nixl-gtest.tap
# (NIXL's own generic backend test for HIXL, tests/nixl/run-gtest.sh);
# without the plugin they say "1..0 # SKIP" why.
#
# HIXL_GUEST_PARTS chooses what runs besides KUnit, from "user cpp python
# nixl nixl-gtest" (the default: all); a part left out that writes TAP
# (python, nixl, nixl-gtest) writes "1..0 # SKIP" with
# $HIXL_GUEST_SKIP_WHY.  HIXL_TEST_SHARD=I/N runs every Nth user test
# (tests/user/main.c): a run split over several VMs.
set -u
rc=0
parts=" ${HIXL_GUEST_PARTS:-user cpp python nixl nixl-gtest} "
part() { case "$parts" in *" $1 "*) return 0 ;; esac; return 1; }
# TAP files of a part left out: one skip, with the reason
skip_tap() {	# NAME...
	for t in "$@"; do
		echo "1..0 # SKIP ${HIXL_GUEST_SKIP_WHY:-not in this boot (HIXL_GUEST_PARTS)}" \
			> "$HIXL_WORK/$t.tap"
	done
}
if [ -n "${1:-}" ]; then
	mkdir -p "$HIXL_WORK/kunit"
	# the suites run while the module loads (kunit_module_notify)
	insmod "$1" || { echo "guest-tests: insmod $1 failed"; rc=1; }
	for d in /sys/kernel/debug/kunit/hixl_*; do
		[ -r "$d/results" ] && cat "$d/results" > "$HIXL_WORK/kunit/${d##*/}.ktap"
	done
	rmmod hixl_kunit || { echo "guest-tests: rmmod hixl_kunit failed"; rc=1; }
fi
if part user; then
	tests/user/hixl-test > "$HIXL_WORK/user.tap" 2>&1 || rc=1
	cat "$HIXL_WORK/user.tap"
fi
# the C++ API (hixl.hpp): every method, and HIXL's sample flow (its last test)
if part cpp; then
	tests/cpp/hixl-cpp-test > "$HIXL_WORK/cpp.tap" 2>&1 || rc=1
	cat "$HIXL_WORK/cpp.tap"
fi
# the Python package and NIXL's Python agent (tests/python/test_nixl_agent.py):
# pytest writes $HIXL_WORK/python.tap and nixl-python.tap (tests/python/
# conftest.py); the repo is read-only in the guest: no bytecode, no cache.
# Importing torch takes about a minute under TCG: this one process imports it
# once, and the tests that need it in a second process fork it.  Only on
# Debian's 6.12, to keep make check's time: not on 6.1, nor on the debug
# kernel (kmemleak), where the same tests without torch cover the module.
if part python; then
	case "$(uname -r)" in
	6.1.*) export HIXL_TEST_TORCH="${HIXL_TEST_TORCH:-0}" ;;
	esac
	[ -e /sys/kernel/debug/kmemleak ] && export HIXL_TEST_TORCH="${HIXL_TEST_TORCH:-0}"
	PYTHONDONTWRITEBYTECODE=1 /usr/bin/python3 -m pytest -q -p no:cacheprovider tests/python \
		> "$HIXL_WORK/python.log" 2>&1 || rc=1
	tail -5 "$HIXL_WORK/python.log"
	cat "$HIXL_WORK/nixl-python.tap" 2>/dev/null
else
	skip_tap python nixl-python
fi
# the NIXL backend plugin (nixl/, docs/nixl.md); exit 77 is a skip
nixl_built() { [ -x build/nixl/hixl-nixl-test ] && [ -r build/nixl/libplugin_HIXL.so ]; }
if ! nixl_built; then
	HIXL_GUEST_SKIP_WHY="the NIXL backend plugin is not built (make nixl NIXL_PREFIX=...)" \
		skip_tap nixl nixl-gtest
else
	if part nixl; then
		build/nixl/hixl-nixl-test > "$HIXL_WORK/nixl.tap" 2> "$HIXL_WORK/nixl.log"
		r=$?; [ $r = 0 ] || [ $r = 77 ] || { rc=1; tail -20 "$HIXL_WORK/nixl.log"; }
		cat "$HIXL_WORK/nixl.tap"
	else
		skip_tap nixl
	fi
	# NIXL's own generic backend test, instantiated for HIXL (tests/nixl/run-gtest.sh)
	if part nixl-gtest; then
		tests/nixl/run-gtest.sh > "$HIXL_WORK/nixl-gtest.tap"
		r=$?; [ $r = 0 ] || [ $r = 77 ] || { rc=1; tail -20 "$HIXL_WORK/nixl-gtest.log"; }
	else
		skip_tap nixl-gtest
	fi
fi
exit $rc
